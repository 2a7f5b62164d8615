/**
 * What a run that executed no benchmark test says (pure): the run script's two lines, and the
 * reporter's one line on a plain `jest` run. Nothing is archived or replaced for such a run.
 */
import path from 'node:path';
import { countTests, testsRun, type JestOutcome } from '../results/outcome';
import type { NothingRan } from './pipeline';

export interface NothingRanInput {
  readonly nothingRan: NothingRan;
  readonly jestExitCode: number | null;
  readonly jestSignal: string | null;
  readonly interrupted: boolean;
  readonly markerExpression: string;
  readonly testNameFilter: string | null;
  readonly reportsDir: string;
  readonly rawResultsDir: string;
  /** Earlier raw result files put back after the run ran nothing. */
  readonly restoredResults: number;
  readonly cwd: string;
}

/**
 * Two lines for a run that executed no test: why (the filter, Jest failing first, files that
 * could not load, an interruption), and that nothing was archived or replaced. Never "passed".
 */
export function formatNothingRan(input: NothingRanInput): string {
  const { nothingRan } = input;
  const shown = (filePath: string) => {
    const relative = path.relative(input.cwd, filePath);
    return relative === '' ? '.' : relative.startsWith('..') ? filePath : relative;
  };
  const exit = `exit code ${input.jestExitCode ?? input.jestSignal ?? 'unknown'}`;
  const firstError = nothingRan.suiteErrors[0];
  let why: string;
  if (input.interrupted) why = `stopped (${input.jestSignal ?? 'interrupted'}) before the first benchmark finished`;
  else if (!nothingRan.outcomeFound && input.jestExitCode !== 0)
    why = `Jest failed before any benchmark file ran (${exit}); its output above says why`;
  else if (!nothingRan.outcomeFound) why = `Jest found no benchmark file to run (${exit})`;
  else if (firstError)
    why = `${nothingRan.suiteErrors.length} benchmark file(s) could not run (${firstError.file}: ${firstError.message.trim().split('\n')[0]}); Jest's output above says more`;
  else
    why = `markers "${input.markerExpression}"${input.testNameFilter ? ` and -t "${input.testNameFilter}"` : ''} selected no test (skipped: ${nothingRan.counts.skipped + nothingRan.counts.todo})`;
  const putBack =
    input.restoredResults > 0 ? `; ${input.restoredResults} earlier raw result file(s) put back in ${shown(input.rawResultsDir)}` : '';
  return [
    `bench: no benchmark ran: ${why}`,
    `bench: nothing archived; the report, its charts and the history in ${shown(input.reportsDir)} are unchanged${putBack}`,
    '',
  ].join('\n');
}

/**
 * The reporter's line on a plain `jest` run that executed no benchmark test and wrote no raw result:
 * why, and that nothing was written; null for any other run (pure).
 */
export function nothingRanLine(outcome: Pick<JestOutcome, 'tests' | 'suite_errors'>, freshResults: number): string | null {
  const counts = countTests(outcome.tests, outcome.suite_errors);
  if (testsRun(counts) > 0 || freshResults > 0) return null;
  const why =
    counts.failed_suites > 0
      ? `${counts.failed_suites} benchmark file(s) could not run`
      : `the selection (BENCH_MARKERS, -t) matched no test (skipped: ${counts.skipped + counts.todo})`;
  return `no benchmark ran: ${why}; nothing archived, junit.xml, the report, its charts and the history are unchanged`;
}
