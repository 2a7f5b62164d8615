/**
 * What a run is compared with (pure): the previous comparable run (the latest earlier run that
 * passed, ran something and shares a result with this one) and the history of that run's build
 * (its usable runs with the same fingerprint, the latest few). Failed, interrupted and empty
 * runs never serve as a baseline: their figures describe a broken run, not the build.
 */
import type { HistoryEntry } from './history';

export interface BaselineChoice {
  readonly previous: HistoryEntry;
  /** Usable runs with the previous run's fingerprint, oldest first, at most `historyRuns`, ending with the previous run. */
  readonly history: readonly HistoryEntry[];
  /** Earlier runs passed over, newest first, and why. */
  readonly skipped: readonly { readonly run_id: string; readonly reason: string }[];
}

/**
 * Why `entry` cannot be a baseline, or undefined when it can. Besides `status`, fields another
 * part of the harness may add to history entries are honoured when present: `failed: true`, or
 * `tests_run: 0`.
 */
export function unusableBaselineReason(entry: HistoryEntry): string | undefined {
  const extra = entry as unknown as { readonly failed?: unknown; readonly tests_run?: unknown };
  if (entry.status !== 'passed') return `the run ${entry.status === 'failed' ? 'failed' : `was ${entry.status}`}`;
  if (extra.failed === true) return 'the run is marked failed';
  if (extra.tests_run === 0) return 'the run ran no test';
  if (entry.results.length === 0) return 'the run has no results';
  return undefined;
}

/**
 * The baseline of a run whose results have keys `currentKeys` (see compare.ts `resultKey`),
 * from the earlier history entries (oldest first); undefined when no earlier run is usable.
 * The previous run is the latest usable one sharing a result (a run filtered to other tests in
 * between is passed over), else the latest usable one.
 */
export function chooseBaseline(
  earlier: readonly HistoryEntry[],
  currentKeys: ReadonlySet<string>,
  keyOf: (result: HistoryEntry['results'][number]) => string,
  historyRuns = 10,
): BaselineChoice | undefined {
  const skipped: { run_id: string; reason: string }[] = [];
  const usable: HistoryEntry[] = [];
  for (const entry of [...earlier].reverse()) {
    const reason = unusableBaselineReason(entry);
    if (reason === undefined) usable.push(entry);
    else skipped.push({ run_id: entry.run_id, reason });
  }
  const previous = usable.find((entry) => entry.results.some((result) => currentKeys.has(keyOf(result)))) ?? usable[0];
  if (!previous) return undefined;
  const history = usable
    .slice(usable.indexOf(previous))
    .filter((entry) => entry.fingerprint === previous.fingerprint)
    .slice(0, historyRuns)
    .reverse();
  // Only the runs newer than the previous one were passed over on the way to it.
  const passedOver = skipped.filter((entry) => earlier.findIndex((run) => run.run_id === entry.run_id) > earlier.indexOf(previous));
  return { previous, history, skipped: passedOver };
}
