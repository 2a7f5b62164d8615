/**
 * One row of the sustained-consume table (benchmarks/bench_throughput.bench.ts), measured into a
 * result draft and its progress line: the workload of the row for this client (a library with one
 * subscription per queue per connection gets a connection per consumer, and the notes say so),
 * the phase, and the result. Recording and the assertions stay in the bench file.
 */
import type { ClientSpec } from '../client/api';
import { adapterOf } from '../client/registry';
import type { ResultDraft } from '../results/rawResult';
import { consumerThreadsFor, resolveConsumeWorkload, spreadNote } from './consumePlan';
import { sustainedConsumeResult } from './consumeResult';
import { measureSustainedConsume, type SustainedConsumeOutcome } from './sustainedConsume';

export interface ConsumeCase {
  readonly consumers: number;
  readonly messageSizeBytes: number;
  /** Worker threads (one connection each) the consumers are spread over. */
  readonly consumerThreads: number;
}

/**
 * At least 3 s of steady state per window (shorter windows moved by more than the changes they
 * were to show), after 1 s of warm-up; two windows, and a third only when the two differ by more
 * than 5% (the rate is not steady yet) and neither ran dry (a figure that is producer-bound stays
 * so). The result says which way the windows ended (details.windows_ended).
 */
export const CONSUME_PHASE = {
  windowMs: 3000,
  warmupMs: 1000,
  rounds: 3,
  minRounds: 2,
  steadyWithinPercent: 5,
  prefetch: 100,
} as const;

export interface ConsumeRowOutcome {
  readonly outcome: SustainedConsumeOutcome;
  readonly draft: ResultDraft;
  readonly progress: string;
}

export const msgRate = (value: number | null | undefined): string =>
  typeof value === 'number' ? `${Math.round(value).toLocaleString('en-US')} msg/s` : 'n/a';

const BOUND_WORDS: Readonly<Record<string, string>> = {
  consumers: 'clean (queue never ran dry)',
  producers: 'PRODUCER-BOUND (queue ran dry)',
  unknown: 'bound unknown (no depth sample)',
};

/** Measures one row for `client` on the broker at `url`. */
export async function measureConsumeRow(client: ClientSpec, consumeCase: ConsumeCase, url: string): Promise<ConsumeRowOutcome> {
  const consumerThreads = consumerThreadsFor(consumeCase.consumers, consumeCase.consumerThreads, adapterOf(client).consumersPerQueue);
  const spread =
    consumerThreads === consumeCase.consumerThreads ? [] : [spreadNote(client.name, consumeCase.consumers, consumeCase.consumerThreads)];
  const workload = resolveConsumeWorkload({ ...consumeCase, ...CONSUME_PHASE, consumerThreads });
  const outcome = await measureSustainedConsume({ url, client, workload });
  const measured = sustainedConsumeResult(outcome);
  const draft: ResultDraft = {
    ...measured,
    notes: [...(measured.notes ?? []), ...spread],
    // The measured windows; the rest is filling the queue, warm-up and the account (a purge).
    measured_ms: Math.round(outcome.phase.windows.reduce((sum, window) => sum + window.durationMs, 0)),
  };
  return { outcome, draft, progress: progressLine(draft, outcome) };
}

function progressLine(draft: ResultDraft, outcome: SustainedConsumeOutcome): string {
  const windows = outcome.phase.windows.map((window) => window.consumeRateMsgsPerSec);
  const bound = String(draft.details?.bound);
  const figure = (name: string) => draft.metrics[name]?.value;
  return (
    `${msgRate(figure('consume_throughput_msgs_per_sec'))} (${figure('consume_throughput_mb_per_sec')} MB/s; windows ${Math.round(Math.min(...windows))}-${Math.round(Math.max(...windows))}), ` +
    `consumer CPU ${figure('consumer_cpu_percent') ?? 'n/a'}% of a core (${figure('consumer_cpu_us_per_msg') ?? 'n/a'} µs/msg), ` +
    `producers ${msgRate(figure('producer_rate_msgs_per_sec'))}, queue depth ${figure('queue_depth_min')}-${figure('queue_depth_max')}: ${BOUND_WORDS[bound] ?? BOUND_WORDS.unknown}; ` +
    `consumed ${figure('messages_consumed')}, missing ${figure('messages_missing')}, extra ${figure('messages_extra')}`
  );
}
