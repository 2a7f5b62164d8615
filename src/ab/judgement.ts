/**
 * What a paired run amounts to: the comparison of B's side with A's (comparePaired), the
 * `--threshold` gate, what went wrong on either side, and the exit code. A gate is green only when
 * both sides ran and passed their tests, something was judged, and nothing judged worse went
 * beyond the threshold; a side that failed its tests fails the gate whatever its figures say.
 */
import type { RunArchive } from '../results/archive';
import { comparePaired } from '../results/pairedCompare';
import type { RunComparison } from '../results/compare';
import { countVerdicts, regressionsBeyond, type Regression } from '../results/gate';
import type { MinimumEffects } from '../minimumEffects';
import type { AbSideSummary } from '../report/abReport';
import type { PairedRunOutcome } from './pairedRun';
import { SIDES, firstOfPair, type Side, type TurnGrant } from './turnSchedule';

export interface AbJudgement {
  readonly comparison: RunComparison | null;
  readonly comparisonNote: string | null;
  readonly regressions: readonly Regression[];
  readonly problems: readonly string[];
  /** One line for the terminal and the report's head. */
  readonly verdict: string;
  readonly exitCode: 0 | 1 | 130;
}

export interface JudgeInput {
  readonly outcome: PairedRunOutcome;
  readonly thresholdPercent: number;
  readonly minimumEffects: MinimumEffects;
  /** Parameters that name the client (two adapter modules are one measurement). */
  readonly ignoreParameters: readonly string[];
}

const ROLE: Readonly<Record<Side, 'baseline' | 'candidate'>> = { A: 'baseline', B: 'candidate' };

export function judgePairedRun(input: JudgeInput): AbJudgement {
  const { outcome } = input;
  const problems = SIDES.flatMap((side) => sideProblems(side, outcome));
  const a = outcome.sides.A.archive;
  const b = outcome.sides.B.archive;
  const comparison =
    a && b ? comparePaired(a, b, { minimumEffects: input.minimumEffects, ignoreParameters: input.ignoreParameters }) : null;
  const regressions = comparison ? regressionsBeyond(comparison, input.thresholdPercent) : [];
  const judged = comparison ? countVerdicts(comparison).judged : 0;
  if (comparison && judged === 0)
    problems.push(
      'no metric could be judged (the selection has no replicated measurement both sides ran): a gate that judged nothing is not green',
    );
  const exitCode = outcome.interrupted ? 130 : problems.length > 0 || regressions.length > 0 ? 1 : 0;
  const verdict =
    exitCode === 130
      ? interruptedVerdict(outcome, comparison)
      : regressions.length > 0
        ? `failed: ${regressions.length} metric(s) of B judged worse than A by more than ${input.thresholdPercent}%`
        : problems.length > 0
          ? `failed: ${problems[0]}`
          : `passed: no metric of B judged worse than A by more than ${input.thresholdPercent}% (${judged} judged)`;
  return {
    comparison,
    comparisonNote: comparison ? null : 'No comparison: a side kept no run (see above and its log).',
    regressions,
    problems,
    verdict,
    exitCode,
  };
}

/** What an interrupted run amounts to: the comparison of what both sides had finished, or why there is none. */
function interruptedVerdict(outcome: PairedRunOutcome, comparison: RunComparison | null): string {
  if (comparison) return `interrupted: compared what both sides had measured (${comparison.matched.length} result(s) both finished)`;
  const without = SIDES.filter((side) => !outcome.sides[side].archive);
  return `interrupted: nothing compared: side ${without.join(' and side ')} kept no run`;
}

function sideProblems(side: Side, outcome: PairedRunOutcome): string[] {
  const state = outcome.sides[side];
  const name = `side ${side} (${ROLE[side]})`;
  if (!state.archive) return [`${name} kept no run (${state.problem ?? 'it finished no measurement'}); its log: ${state.logPath}`];
  const counts = state.archive.counts;
  if (state.archive.status === 'passed') return [];
  const failed = state.archive.tests.filter((test) => test.status === 'failed').map((test) => test.test_id.split('::').at(-1));
  return [
    `${name} did not pass (${state.archive.status}${counts.failed > 0 ? `: ${counts.failed} test(s) failed, ${failed.slice(0, 3).join(', ')}` : ''}); its log: ${state.logPath}`,
  ];
}

/** Each side's line in the report. */
export function sideSummaries(
  outcome: PairedRunOutcome,
  builds: Readonly<Record<Side, { build: string; harness: string }>>,
): AbSideSummary[] {
  return SIDES.map((side) => {
    const state = outcome.sides[side];
    const archive: RunArchive | null = state.archive;
    return {
      side,
      role: ROLE[side],
      build: builds[side].build,
      harness: builds[side].harness,
      runId: archive?.run_id ?? null,
      status: archive?.status ?? 'no archive',
      tests: archive
        ? `${archive.counts.passed} passed, ${archive.counts.failed} failed, ${archive.counts.skipped + archive.counts.todo} skipped`
        : '—',
      logPath: state.logPath,
    };
  });
}

/**
 * Pairs of turns whose labels differ (the sides ran different tests at that point): their results
 * are still paired by name and replicate, but were not measured back to back.
 */
export function misalignedPairs(grants: readonly TurnGrant[]): { readonly pairs: number; readonly first: string | null } {
  const bySide = (side: Side) => grants.filter((grant) => grant.side === side);
  const a = bySide('A');
  const b = bySide('B');
  let pairs = 0;
  let first: string | null = null;
  for (let turn = 0; turn < Math.min(a.length, b.length); turn += 1) {
    if (a[turn]!.label === b[turn]!.label) continue;
    pairs += 1;
    first ??= `pair ${turn} (${firstOfPair(turn)} first): A "${a[turn]!.label}", B "${b[turn]!.label}"`;
  }
  return { pairs, first };
}
