/**
 * One row of the publish-throughput table (benchmarks/bench_throughput.bench.ts), from its
 * replicates to a result draft and its progress line: the replicates' figures, the client's
 * findings (publishes never settled, a round cut at its bound) and the time spent measuring.
 * Recording and the assertions stay in the bench file.
 */
import type { ClientInfo } from '../client/api';
import { mergeHistograms, summarizeMs } from '../measure/histogram';
import type { NonEmptyArray } from '../measure/statistics';
import type { ResultDraft } from '../results/rawResult';
import { findingsProgress, type Finding } from '../suite-kit/findings';
import { incompleteRoundFinding } from './incompleteRound';
import type { PublishThroughputOutcome } from './measure';
import type { PublishWorkload } from './plan';
import { countErrors, publishThroughputReplicatesResult } from './result';
import { unsettledPublishFinding } from './unsettled';

export interface PublishRowResult {
  readonly draft: ResultDraft;
  readonly findings: Finding[];
  readonly progress: string;
}

/** Plain-mode publish calls take microseconds: show those as µs rather than `0.00 ms`. */
const latency = (ms: number | null): string =>
  ms === null ? 'n/a' : ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;

export const rate = (value: number | null | undefined): string =>
  typeof value === 'number' ? `${Math.round(value).toLocaleString('en-US')} msg/s` : 'n/a';

/** The row's result from its replicates' outcomes, for `client` (its library, version and settings name its findings). */
export function publishRowResult(
  outcomes: NonEmptyArray<PublishThroughputOutcome>,
  client: Pick<ClientInfo, 'library' | 'version' | 'settings'>,
  workload: PublishWorkload,
  roundBoundMs: number,
): PublishRowResult {
  const unsettled = unsettledPublishFinding(outcomes, client);
  const incomplete = incompleteRoundFinding(outcomes, client);
  const findings = [unsettled, incomplete].filter((finding): finding is Finding => finding !== undefined);
  const draft: ResultDraft = {
    ...publishThroughputReplicatesResult(outcomes),
    // The measured rounds of every replicate, and a warm-up round cut at its bound (its figure is the
    // incomplete round's); the rest of the test is sessions, warm-up rounds and purges.
    measured_ms: Math.round(
      outcomes
        .flatMap((outcome) => outcome.rounds.filter((round) => !round.warmup || round.cut))
        .reduce((sum, round) => sum + round.durationMs, 0),
    ),
    findings,
  };
  const replicateRates = draft.replicates?.throughput_msgs_per_sec ?? [];
  const spread =
    replicateRates.length > 0 ? `${Math.round(Math.min(...replicateRates))}-${Math.round(Math.max(...replicateRates))}` : 'no rate';
  const summary = summarizeMs(mergeHistograms(outcomes.map((outcome) => outcome.report.histogram)));
  const errors = outcomes.reduce((sum, outcome) => sum + countErrors(outcome), 0);
  const progress =
    `${rate(draft.metrics.throughput_msgs_per_sec?.value)} (${draft.metrics.throughput_mb_per_sec?.value ?? 'n/a'} MB/s; median of ${outcomes.length} replicates, ${spread}), ` +
    (incomplete ? `incomplete round ${rate(draft.metrics.incomplete_round_msgs_per_sec?.value)} (cut at ${roundBoundMs} ms), ` : '') +
    `${workload.mode === 'confirm' ? 'publish->confirm' : 'publish call'} p50 ${latency(summary.p50)}, p95 ${latency(summary.p95)}, p99 ${latency(summary.p99)}, max ${latency(summary.max)} (all replicates); ` +
    `${workload.workerThreads} worker thread(s), errors ${errors}${findingsProgress(findings)}`;
  return { draft, findings, progress };
}
