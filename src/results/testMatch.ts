/**
 * Which Jest test wrote a raw result. Raw results carry `test_id` =
 * `<file>::<describe>::...::<test name>`; Jest knows a test by its ancestor titles and title.
 * The file part is written differently by different writers (relative path, base name), so
 * the match is on the describe/title path, and on the file's base name when both have one.
 */

export interface TestIdentity {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  /** Path or base name of the test file, when known. */
  readonly file?: string;
}

export function splitTestId(testId: string): { file: string; titles: string[] } {
  const [file = '', ...titles] = testId.split('::');
  return { file, titles };
}

const baseName = (file: string) => file.split(/[\\/]/).pop() ?? file;

/** Does the raw result `testId` come from the test `identity`? */
export function testIdMatches(testId: string, identity: TestIdentity): boolean {
  const { file, titles } = splitTestId(testId);
  const expected = [...identity.ancestorTitles, identity.title];
  const sameTitles = titles.length === expected.length ? titles.every((title, index) => title === expected[index]) : titles.join(' ') === expected.join(' ');
  if (!sameTitles) return false;
  return !identity.file || !file || baseName(file) === baseName(identity.file);
}

/** `<file>::<describe>::<title>` for a Jest test, the form raw results use. */
export function testIdOf(relativeFile: string, ancestorTitles: readonly string[], title: string): string {
  return [relativeFile, ...ancestorTitles, title].join('::');
}
