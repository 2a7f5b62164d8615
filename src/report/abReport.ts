/**
 * The report of a paired run (`bench ab`), pure: its sides (which build, which run, how their
 * tests went), the comparison of B with A in the same section the run report has (the same view,
 * in the paired design's words), the `--threshold` verdict and where every file is.
 */
import path from 'node:path';
import type { RunComparison } from '../results/compare';
import type { Regression } from '../results/gate';
import { buildComparisonView, describeRegression, type ComparisonView } from './comparisonView';
import { formatDuration } from './format';
import { markdownTable } from './markdown';
import { renderTemplate } from './render';

export const AB_TEMPLATE_PATH = path.join(__dirname, 'templates', 'ab-report.md.hbs');

export interface AbSideSummary {
  readonly side: 'A' | 'B';
  readonly role: 'baseline' | 'candidate';
  /** `main (1a2b3c4d)`, `the working tree`, `./bench/adapter.js`. */
  readonly build: string;
  /** `amqp-bench 0.1.0`. */
  readonly harness: string;
  readonly runId: string | null;
  /** `passed`, `failed`, `interrupted`, `no archive`. */
  readonly status: string;
  /** `21 passed, 0 failed, 39 skipped`. */
  readonly tests: string;
  readonly logPath: string;
}

export interface AbReportInput {
  readonly id: string;
  /** `markers "benchmark and not slow …"`, with `-t` when given. */
  readonly selection: string;
  readonly wallMs: number;
  /** Turns each side had (its tests and replicates). */
  readonly turns: number;
  readonly sides: readonly AbSideSummary[];
  /** What went wrong on a side (its tests failed, it wrote no archive), one line each. */
  readonly problems: readonly string[];
  readonly comparison: RunComparison | null;
  readonly comparisonNote: string | null;
  readonly thresholdPercent: number;
  readonly regressions: readonly Regression[];
  /** One line: passed, or why not. */
  readonly verdict: string;
  readonly files: readonly string[];
}

export interface AbReportView {
  readonly id: string;
  readonly verdict: string;
  readonly selection: string;
  readonly wall_time: string;
  readonly pairs: number;
  readonly sides_table: string;
  readonly side_problems: readonly string[];
  readonly comparison: ComparisonView | null;
  readonly comparison_note: string | null;
  readonly threshold_percent: number;
  readonly regressions: readonly string[];
  readonly files: readonly string[];
}

export function buildAbReportView(input: AbReportInput): AbReportView {
  return {
    id: input.id,
    verdict: input.verdict,
    selection: input.selection,
    wall_time: formatDuration(input.wallMs),
    pairs: input.turns,
    sides_table: markdownTable(
      ['Side', 'Build', 'Harness', 'Run', 'Status', 'Tests', 'Log'],
      input.sides.map((side) => [
        `${side.side} (${side.role})`,
        side.build,
        side.harness,
        side.runId === null ? '—' : `\`${side.runId}\``,
        side.status,
        side.tests,
        `\`${side.logPath}\``,
      ]),
    ),
    side_problems: input.problems,
    comparison: input.comparison ? buildComparisonView(input.comparison, input.thresholdPercent, input.regressions) : null,
    comparison_note: input.comparisonNote,
    threshold_percent: input.thresholdPercent,
    regressions: input.regressions.map((regression) => describeRegression(regression)),
    files: input.files,
  };
}

/** The paired run's Markdown report. */
export function renderAbReport(input: AbReportInput): string {
  return renderTemplate(buildAbReportView(input), AB_TEMPLATE_PATH);
}
