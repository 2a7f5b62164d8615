import { buildRunArchive } from '../../src/results/archive';
import { chooseBaseline, unusableBaselineReason } from '../../src/results/baseline';
import { resultKey } from '../../src/results/compare';
import { historyEntryOf, type HistoryEntry } from '../../src/results/history';
import { environment, realisticResults } from './helpers';

function entry(runId: string, overrides: Partial<HistoryEntry> = {}, fingerprint = 'abcd1234'): HistoryEntry {
  const archive = buildRunArchive({
    environment: environment({ fingerprint }),
    startedAt: new Date('2025-01-31T12:00:00Z'),
    finishedAt: new Date('2025-01-31T12:04:00Z'),
    markerExpression: 'benchmark',
    testNameFilter: null,
    invokedBy: 'cli',
    jestExitCode: 0,
    interrupted: false,
    tests: [],
    suiteErrors: [],
    results: realisticResults().map((result) => ({ ...result, fingerprint })),
    invalidResultFiles: [],
    warnings: [],
  });
  // tests_run: the fixture's archive lists no test; a usable baseline ran some.
  return { ...historyEntryOf({ ...archive, run_id: runId }, `/x/${runId}.json`), tests_run: 4, ...overrides };
}

const keys = new Set(realisticResults().map((result) => resultKey(result)));
const choose = (earlier: HistoryEntry[], historyRuns = 10) => chooseBaseline(earlier, keys, resultKey, historyRuns);

describe('the baseline of a comparison', () => {
  it('is the latest usable run; failed, interrupted, empty and marked runs are passed over, with the reason', () => {
    const good = entry('run_good');
    const failed = entry('run_failed', { status: 'failed' });
    const interrupted = entry('run_interrupted', { status: 'interrupted' });
    const empty = entry('run_empty', { results: [] });
    const marked = { ...entry('run_marked'), failed: true } as HistoryEntry;
    const nothingRan = { ...entry('run_nothing'), tests_run: 0 } as HistoryEntry;
    const chosen = choose([good, failed, interrupted, empty, marked, nothingRan]);
    expect(chosen?.previous.run_id).toBe('run_good');
    expect(chosen?.skipped).toEqual([
      { run_id: 'run_nothing', reason: 'the run ran no test' },
      { run_id: 'run_marked', reason: 'the run is marked failed' },
      { run_id: 'run_empty', reason: 'the run has no results' },
      { run_id: 'run_interrupted', reason: 'the run was interrupted' },
      { run_id: 'run_failed', reason: 'the run failed' },
    ]);
    expect(choose([failed, empty])).toBeUndefined();
    expect(unusableBaselineReason(good)).toBeUndefined();
  });

  it('prefers the latest run sharing a result with this one', () => {
    const full = entry('run_full');
    const other = entry('run_other', { results: full.results.slice(0, 1).map((result) => ({ ...result, name: 'other_family' })) });
    expect(choose([full, other])?.previous.run_id).toBe('run_full');
    expect(chooseBaseline([full, other], new Set(['nope']), resultKey)?.previous.run_id).toBe('run_other');
  });

  it("draws its history from the previous run's build only (same fingerprint), the latest few, oldest first", () => {
    const runs = [
      entry('run_1'),
      entry('run_2', {}, 'ffff0000'),
      entry('run_3'),
      entry('run_4', { status: 'failed' }),
      entry('run_5'),
      entry('run_6'),
    ];
    expect(choose(runs)?.history.map((run) => run.run_id)).toEqual(['run_1', 'run_3', 'run_5', 'run_6']);
    expect(choose(runs, 2)?.history.map((run) => run.run_id)).toEqual(['run_5', 'run_6']);
    // The previous run is of the other build: its history is that build's runs.
    expect(choose(runs.slice(0, 2))?.history.map((run) => run.run_id)).toEqual(['run_2']);
  });
});
