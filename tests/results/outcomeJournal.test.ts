/**
 * The test outcome as the reporter leaves it while a run goes: the outcome written at the start,
 * each finished test one line of its journal; read back as one outcome, whatever was cut short.
 * Real files in a temp folder.
 */
import fs from 'node:fs';
import {
  appendOutcome,
  outcomeJournalPath,
  readOutcome,
  removeOutcome,
  writeOutcome,
  type JestOutcome,
  type TestOutcome,
} from '../../src/results/outcome';
import { tempDir } from './helpers';

const STARTED_AT = '2025-01-31T12:00:00.000Z';
const start: JestOutcome = {
  schema_version: 1,
  started_at: STARTED_AT,
  updated_at: STARTED_AT,
  complete: false,
  tests: [],
  suite_errors: [],
};
const test = (name: string, status: TestOutcome['status'] = 'passed'): TestOutcome => ({
  test_id: `benchmarks/a.bench.ts::A::${name}`,
  full_name: `A ${name}`,
  status,
  duration_ms: 10,
  failure_message: null,
});
const update = (at: string, tests: TestOutcome[], extra: Partial<JestOutcome> = {}): JestOutcome => ({
  ...start,
  updated_at: at,
  tests,
  ...extra,
});

let dir: string;
beforeEach(() => {
  dir = tempDir('outcome-journal');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the test outcome and its journal', () => {
  it('read as one: tests in the order they first finished, a later line for a test or a file replacing the earlier', () => {
    writeOutcome(dir, start);
    appendOutcome(dir, update('2025-01-31T12:00:01.000Z', [test('a', 'skipped')]));
    appendOutcome(dir, update('2025-01-31T12:00:02.000Z', [test('b')]));
    appendOutcome(
      dir,
      update('2025-01-31T12:00:03.000Z', [test('a', 'failed')], { suite_errors: [{ file: 'benchmarks/c.bench.ts', message: 'boom' }] }),
    );
    expect(readOutcome(dir)).toEqual({
      ...start,
      updated_at: '2025-01-31T12:00:03.000Z',
      tests: [test('a', 'failed'), test('b')],
      suite_errors: [{ file: 'benchmarks/c.bench.ts', message: 'boom' }],
    });
  });

  it('skips lines of another run, off-schema lines and a line cut short by a kill; a complete outcome is read alone', () => {
    writeOutcome(dir, start);
    appendOutcome(dir, update('2025-01-31T12:00:01.000Z', [test('a')]));
    appendOutcome(dir, update('2025-01-31T12:00:02.000Z', [test('other')], { started_at: '2025-01-30T09:00:00.000Z' }));
    fs.appendFileSync(outcomeJournalPath(dir), `${JSON.stringify({ ...start, tests: [{ test_id: 'x' }] })}\n`);
    fs.appendFileSync(outcomeJournalPath(dir), JSON.stringify(update('2025-01-31T12:00:03.000Z', [test('b')])).slice(0, 60));
    expect(readOutcome(dir)?.tests).toEqual([test('a')]);

    const complete = { ...start, complete: true, tests: [test('a'), test('b')] };
    fs.writeFileSync(`${dir}/.jest-outcome.json`, JSON.stringify(complete));
    expect(readOutcome(dir)).toEqual(complete);
  });

  it('starts a new journal when the outcome is written whole, and goes as a whole', () => {
    writeOutcome(dir, start);
    appendOutcome(dir, update('2025-01-31T12:00:01.000Z', [test('a')]));
    writeOutcome(dir, { ...start, complete: true, tests: [test('a')] });
    expect(fs.existsSync(outcomeJournalPath(dir))).toBe(false);
    appendOutcome(dir, update('2025-01-31T12:00:02.000Z', [test('b')]));
    removeOutcome(dir);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses an update that does not follow the outcome schema, before writing it', () => {
    const bad = update('2025-01-31T12:00:01.000Z', [{ ...test('a'), status: 'pending' } as unknown as TestOutcome]);
    expect(() => appendOutcome(dir, bad)).toThrow('the Jest outcome update does not follow schemas/jest-outcome.schema.json');
    expect(fs.existsSync(outcomeJournalPath(dir))).toBe(false);
  });
});
