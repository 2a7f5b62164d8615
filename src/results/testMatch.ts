/**
 * The one rule for a test's id: `<file relative to the Jest root>::<describe>::...::<test name>`.
 * Raw results carry it as `test_id` (built inside the test from the titles the test environment
 * publishes, fixtures/testEnvironment.ts); the reporter builds it from Jest's record of the same
 * test. Both go through `testIdOf`, so ids match exactly, never by guessing.
 */
import path from 'node:path';

/** Where the running test is, as the test environment publishes it in the test's globals. */
export interface CurrentTest {
  /** The Jest project's rootDir. */
  readonly rootDir: string;
  readonly ancestorTitles: readonly string[];
  readonly title: string;
}

/** Global under which fixtures/testEnvironment.ts publishes the running test (`CurrentTest`). */
export const CURRENT_TEST_KEY = '__amqpBenchCurrentTest';

/** `<file>::<describe>::<title>` for a test; `relativeFile` uses forward slashes. */
export function testIdOf(relativeFile: string, ancestorTitles: readonly string[], title: string): string {
  return [relativeFile.split(path.sep).join('/'), ...ancestorTitles, title].join('::');
}

/** The id of a test file's test, from the file's absolute path and the project's rootDir. */
export function testIdIn(rootDir: string, testPath: string, ancestorTitles: readonly string[], title: string): string {
  return testIdOf(path.relative(rootDir, testPath), ancestorTitles, title);
}

export function splitTestId(testId: string): { file: string; titles: string[] } {
  const [file = '', ...titles] = testId.split('::');
  return { file, titles };
}

/**
 * The same test, where one side may know only the titles (jest-junit hands a test case over
 * without its file): ids equal, or, without a file, the title paths equal.
 */
export function sameTest(
  testId: string,
  other: { readonly file?: string; readonly ancestorTitles: readonly string[]; readonly title: string },
): boolean {
  const { file, titles } = splitTestId(testId);
  const expected = [...other.ancestorTitles, other.title];
  if (titles.length !== expected.length || titles.some((title, index) => title !== expected[index])) return false;
  return other.file === undefined || file === other.file;
}
