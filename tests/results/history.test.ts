import fs from 'node:fs';
import path from 'node:path';
import { buildRunArchive } from '../../src/results/archive';
import { acquireFileLock, withFileLock } from '../../src/results/fileLock';
import { appendToHistory, historyEntryOf, historyPath, previousRunWithResults, readHistory, type History } from '../../src/results/history';
import { resultKey } from '../../src/results/compare';
import { removeAbandonedTempFiles, writeFileAtomic } from '../../src/io/atomicFile';
import { environment, realisticResults, tempDir } from './helpers';

function entry(runId: string) {
  const archive = buildRunArchive({
    environment: environment(),
    startedAt: new Date('2025-01-31T12:00:00Z'),
    finishedAt: new Date('2025-01-31T12:04:00Z'),
    markerExpression: 'benchmark',
    testNameFilter: null,
    invokedBy: 'cli',
    jestExitCode: 0,
    interrupted: false,
    tests: [],
    suiteErrors: [],
    results: realisticResults(),
    invalidResultFiles: [],
    warnings: [],
  });
  return historyEntryOf({ ...archive, run_id: runId }, `/x/${runId}.json`);
}

describe('the run to compare with', () => {
  it('is the latest earlier run sharing a result, not a later run filtered to other tests', () => {
    const full = entry('run_full');
    const filtered = { ...entry('run_filtered'), results: full.results.slice(0, 1).map((result) => ({ ...result, name: 'other_family' })) };
    const empty = { ...entry('run_empty'), results: [] };
    const current = new Set(full.results.map((result) => resultKey(result)));
    expect(previousRunWithResults([full, filtered, empty], current, resultKey)?.run_id).toBe('run_full');
    // Nothing shared anywhere: the latest run with results; none at all: nothing.
    expect(previousRunWithResults([full, filtered, empty], new Set(['nope']), resultKey)?.run_id).toBe('run_filtered');
    expect(previousRunWithResults([empty])).toBeUndefined();
  });

  it('is never a run that failed part-way or was interrupted, however recent', () => {
    const passed = entry('run_passed');
    const failed = { ...entry('run_failed'), status: 'failed' as const, tests_run: 3 };
    const interrupted = { ...entry('run_interrupted'), status: 'interrupted' as const };
    const current = new Set(passed.results.map((result) => resultKey(result)));
    expect(previousRunWithResults([passed, failed, interrupted], current, resultKey)?.run_id).toBe('run_passed');
    expect(previousRunWithResults([passed, failed, interrupted])?.run_id).toBe('run_passed');
    expect(previousRunWithResults([failed, interrupted], current, resultKey)).toBeUndefined();
  });

  it('carries the number of tests that ran in every entry', () => {
    expect(entry('run_x')).toMatchObject({ status: 'passed', tests_run: 0 });
  });
});

describe('history', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('history');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('starts empty, appends one entry per run and reports the earlier ones', () => {
    expect(readHistory(dir).history.runs).toEqual([]);
    const first = appendToHistory(dir, entry('run_20250131_120000_abcd1234'));
    expect(first.earlier).toEqual([]);
    const second = appendToHistory(dir, entry('run_20250131_130000_abcd1234'));
    expect(second.earlier.map((run) => run.run_id)).toEqual(['run_20250131_120000_abcd1234']);
    const onDisk = JSON.parse(fs.readFileSync(historyPath(dir), 'utf8')) as History;
    expect(onDisk.runs.map((run) => run.run_id)).toEqual(['run_20250131_120000_abcd1234', 'run_20250131_130000_abcd1234']);
    expect(onDisk.runs[1]!.key_metrics.find((metric) => metric.id === 'rst_detection')?.value).toBe(2.1);
    expect(fs.readdirSync(dir).sort()).toEqual(['benchmark_history.json']);
  });

  it('moves a history that does not parse aside, says so, and never overwrites it', () => {
    const garbage = '{"schema_version": 1, "runs": [ {"run_id": "run_1", "started_at": "x"}, TRUNCATED';
    fs.writeFileSync(historyPath(dir), garbage);
    const appended = appendToHistory(dir, entry('run_20250131_120000_abcd1234'), { now: () => new Date('2025-02-01T08:09:10.123Z') });
    expect(appended.corrupt?.reason).toMatch(/^not valid JSON/);
    expect(appended.corrupt?.movedTo).toBe(path.join(dir, 'benchmark_history.corrupt-20250201T080910_123Z.json'));
    expect(fs.readFileSync(appended.corrupt!.movedTo!, 'utf8')).toBe(garbage);
    expect(appended.history.runs).toHaveLength(1);

    // A second corrupt file in the same millisecond gets its own name.
    fs.writeFileSync(historyPath(dir), '[]');
    const again = appendToHistory(dir, entry('run_20250131_130000_abcd1234'), { now: () => new Date('2025-02-01T08:09:10.123Z') });
    expect(again.corrupt).toEqual({
      reason: 'not a JSON object',
      movedTo: path.join(dir, 'benchmark_history.corrupt-20250201T080910_123Z_2.json'),
    });
    expect(fs.readFileSync(again.corrupt!.movedTo!, 'utf8')).toBe('[]');
  });

  it('reading alone reports a corrupt file but leaves it where it is', () => {
    fs.writeFileSync(historyPath(dir), '{"runs": 3}');
    const read = readHistory(dir);
    expect(read.corrupt).toEqual({ reason: 'schema_version missing', movedTo: null });
    expect(fs.readFileSync(historyPath(dir), 'utf8')).toBe('{"runs": 3}');
  });

  it('refuses to rewrite a history written by a newer schema', () => {
    fs.writeFileSync(historyPath(dir), JSON.stringify({ schema_version: 99, updated_at: 'x', runs: [] }));
    expect(() => appendToHistory(dir, entry('run_20250131_120000_abcd1234'))).toThrow(/schema_version 99, newer than this harness \(1\)/);
    expect(JSON.parse(fs.readFileSync(historyPath(dir), 'utf8')).schema_version).toBe(99);
  });
});

describe('atomic writes', () => {
  it('leaves the old content or the new, never a part, and no temp file', () => {
    const dir = tempDir('atomic');
    const file = path.join(dir, 'data.json');
    writeFileAtomic(file, 'old');
    writeFileAtomic(file, 'x'.repeat(1_000_000));
    expect(fs.readFileSync(file, 'utf8')).toHaveLength(1_000_000);
    expect(fs.readdirSync(dir)).toEqual(['data.json']);
    // A write that fails (the target is a directory) keeps the old content and cleans up.
    fs.mkdirSync(path.join(dir, 'blocked.json'));
    expect(() => writeFileAtomic(path.join(dir, 'blocked.json'), 'new')).toThrow();
    expect(fs.readdirSync(dir).sort()).toEqual(['blocked.json', 'data.json']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('removes the temp files of writers that are gone (killed before their rename), once old enough, and no other file', () => {
    const dir = tempDir('atomic-leftovers');
    const gone = `benchmark_history.json.${2 ** 22 + 1}.0a0b0c0d.tmp`;
    const live = `LATEST_REPORT.md.${process.pid}.0a0b0c0d.tmp`;
    for (const name of [gone, live, 'benchmark_history.json', 'notes.tmp']) fs.writeFileSync(path.join(dir, name), 'x');
    const nowMs = fs.statSync(path.join(dir, gone)).mtimeMs;
    expect(removeAbandonedTempFiles(dir, 60_000, nowMs + 1_000)).toEqual([]);
    expect(removeAbandonedTempFiles(dir, 60_000, nowMs + 61_000)).toEqual([gone]);
    expect(fs.readdirSync(dir).sort()).toEqual([live, 'benchmark_history.json', 'notes.tmp'].sort());
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('file lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('lock');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('waits for the holder, then names it when the wait times out', () => {
    const lock = path.join(dir, 'x.lock');
    const release = acquireFileLock(lock);
    expect(() => acquireFileLock(lock, { timeoutMs: 100 })).toThrow(
      new RegExp(`could not lock .*x\\.lock within 100 ms; held by pid ${process.pid}`),
    );
    release();
    expect(withFileLock(lock, () => 'ran')).toBe('ran');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('breaks a lock older than staleAfterMs even when its pid lives', () => {
    const lock = path.join(dir, 'x.lock');
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, hostname: 'elsewhere', acquired_at: '2000-01-01T00:00:00.000Z', token: 'old' }),
    );
    expect(withFileLock(lock, () => 'ran', { timeoutMs: 2000 })).toBe('ran');
  });

  it('releases the lock when the action throws', () => {
    const lock = path.join(dir, 'x.lock');
    expect(() =>
      withFileLock(lock, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(fs.existsSync(lock)).toBe(false);
  });
});
