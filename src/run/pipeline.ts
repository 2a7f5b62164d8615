/**
 * The end of a run, in the order that never loses data: collect the raw results and the test
 * outcome, build the archive, then record it (record.ts: archive, history, compare, report). A
 * failure in a later step leaves the earlier ones done.
 * A run that executed no test and produced no result writes nothing at all (`completeRun`): the
 * last report, its charts and the history stay as they were.
 */
import { buildRunArchive, type RunArchiveInput } from '../results/archive';
import { collectRawResults, type CollectedResults } from '../results/collect';
import { recordRun, type RecordedRun } from './record';
import { reportWritingOf, type ReportWriting } from './report';
import { countTests, readOutcome, testsRun, type JestOutcome, type SuiteError, type TestCounts } from '../results/outcome';

export interface FinalizeRunOptions
  extends
    Pick<
      RunArchiveInput,
      'environment' | 'startedAt' | 'finishedAt' | 'markerExpression' | 'testNameFilter' | 'invokedBy' | 'jestExitCode' | 'interrupted'
    >,
    ReportWriting {
  readonly rawResultsDir: string;
  /** The reporter passes what it knows; the run script leaves it to the file the reporter wrote. */
  readonly outcome?: JestOutcome;
  /** Collect only raw results written since (plain `jest` runs do not clear old ones). */
  readonly resultsModifiedSinceMs?: number;
  /** The raw results, when the caller already collected them (`completeRun` does). */
  readonly collected?: CollectedResults;
  /** Where warnings go as they happen. @default stderr */
  readonly warn?: (message: string) => void;
}

export interface FinalizeRunResult extends RecordedRun {
  readonly warnings: readonly string[];
}

/** A run that executed no test and produced no raw result: nothing is archived, recorded or reported. */
export interface NothingRan {
  readonly counts: TestCounts;
  /** False when Jest left no outcome: it stopped before any benchmark file ran (e.g. globalSetup failed). */
  readonly outcomeFound: boolean;
  /** Test files that could not run, and why (first lines of Jest's message). */
  readonly suiteErrors: readonly SuiteError[];
}

export type RunCompletion =
  { readonly kind: 'archived'; readonly finalized: FinalizeRunResult } | { readonly kind: 'nothing-ran'; readonly nothingRan: NothingRan };

const defaultWarn = (message: string) => process.stderr.write(`bench: warning: ${message}\n`);

/**
 * The end of a run as the run script and the reporter see it: a run that executed no test and
 * produced no raw result is reported back as `nothing-ran` without writing anything (no archive,
 * no history entry, no report); any other run is finalized (`finalizeRun`), a failed one too.
 */
export async function completeRun(options: FinalizeRunOptions): Promise<RunCompletion> {
  const collected = options.collected ?? collectRawResults(options.rawResultsDir, { modifiedSinceMs: options.resultsModifiedSinceMs });
  const outcome = options.outcome ?? readOutcome(options.rawResultsDir);
  const counts = countTests(outcome?.tests ?? [], outcome?.suite_errors ?? []);
  if (testsRun(counts) === 0 && collected.results.length === 0) {
    return { kind: 'nothing-ran', nothingRan: { counts, outcomeFound: outcome !== undefined, suiteErrors: outcome?.suite_errors ?? [] } };
  }
  return { kind: 'archived', finalized: await finalizeRun({ ...options, outcome, collected }) };
}

/** Archives, records and reports the run, whatever it produced (runs go through `completeRun`). */
export async function finalizeRun(options: FinalizeRunOptions): Promise<FinalizeRunResult> {
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (options.warn ?? defaultWarn)(message);
  };
  const collected = options.collected ?? collectRawResults(options.rawResultsDir, { modifiedSinceMs: options.resultsModifiedSinceMs });
  const outcome = options.outcome ?? readOutcome(options.rawResultsDir);
  if (!outcome) warn('Jest left no test outcome (it stopped before any test finished); the archive lists results only');
  else if (!outcome.complete && !options.interrupted)
    warn('Jest stopped before the end of the run; the archive holds the tests that finished');

  const built = buildRunArchive({
    environment: options.environment,
    startedAt: options.startedAt,
    finishedAt: options.finishedAt,
    markerExpression: options.markerExpression,
    testNameFilter: options.testNameFilter,
    invokedBy: options.invokedBy,
    jestExitCode: options.jestExitCode,
    interrupted: options.interrupted,
    tests: outcome?.tests ?? [],
    suiteErrors: outcome?.suite_errors ?? [],
    results: collected.results,
    invalidResultFiles: collected.invalid,
    warnings: [],
  });
  const recorded = await recordRun(built, { ...reportWritingOf(options), warnings, warn });
  return { ...recorded, warnings };
}
