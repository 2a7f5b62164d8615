/**
 * Raw results of the consume part of the throughput suite, built from what was measured (pure):
 * `sustained_consume` (the consumers' rate over windows of steady state, and what bounded it) and
 * `consume_harness_overhead` (the harness's consume rate against the bare script's, in pairs).
 */
import { isNonEmpty } from '../measure/statistics';
import { judgedTarget } from '../results/targetVerdict';
import type { ConsumeOverheadOutcome, ConsumePair } from './consumeOverhead';
import type { ConsumeWorkload } from './consumePlan';
import { boundOf, type ConsumeWindow, type DepthSummary } from './consumeRates';
import { overheadRatioPercent, roundFigure, summarizeRates } from './rates';
import { HARNESS_OVERHEAD_TARGET_PERCENT, throughputMetric, type ResultDraft } from './result';
import type { PhaseOutcome } from './consumeSession';
import type { SustainedConsumeOutcome } from './sustainedConsume';

const metric = throughputMetric;

const median = (values: readonly number[]): number | null => (isNonEmpty(values) ? summarizeRates(values).median : null);

/** What a reader must know about a bound, said once for every consume figure. */
export const BOUND_NOTES = {
  consumers:
    "bound: clean — the queue never ran dry in a measured window, so the consumers always had messages waiting and the rate is theirs, not the producers' pace; consumer_cpu_percent says whether the client's threads were the limit (near 100% of a core each) or waited for the broker or the machine (well below)",
  producers:
    "bound: PRODUCER-BOUND — the queue ran dry in at least one measured window (a depth sample found no ready message), so the rate is the producers' pace, a lower bound of the consumers' throughput, not a clean throughput",
  unknown: 'bound: unknown — a measured window had no queue depth sample, so nobody can say whether the queue ran dry',
} as const;

function depthFigures(windows: readonly DepthSummary[]): { min: number | null; max: number | null } {
  const mins = windows.flatMap((depth) => (depth.minReady === null ? [] : [depth.minReady]));
  const maxes = windows.flatMap((depth) => (depth.maxReady === null ? [] : [depth.maxReady]));
  return { min: mins.length > 0 ? Math.min(...mins) : null, max: maxes.length > 0 ? Math.max(...maxes) : null };
}

function windowDetail(window: ConsumeWindow) {
  return {
    duration_ms: roundFigure(window.durationMs),
    delivered: window.delivered,
    msgs_per_sec: roundFigure(window.consumeRateMsgsPerSec),
    producer_msgs_per_sec: roundFigure(window.publishRateMsgsPerSec),
    cpu_percent: nullableFigure(window.consumerCpuPercent),
    cpu_us_per_msg: nullableFigure(window.cpuUsPerMessage),
    depth: depthDetail(window.depth),
  };
}

const nullableFigure = (value: number | null): number | null => (value === null ? null : roundFigure(value));

/** The values that are known, for a median over windows or pairs. */
const known = (values: readonly (number | null)[]): number[] => values.filter((value): value is number => value !== null);

function depthDetail(depth: DepthSummary) {
  return {
    samples: depth.samples,
    min_ready: depth.minReady,
    max_ready: depth.maxReady,
    min_consumers: depth.minConsumers,
    max_consumers: depth.maxConsumers,
    ran_dry: depth.ranDry,
  };
}

/** The parameters a sustained-consume workload gives both its own result and the overhead check's. */
function workloadParameters(workload: ConsumeWorkload) {
  return {
    consumers: workload.consumers,
    prefetch: workload.prefetch,
    ack: 'manual',
    message_size_bytes: workload.messageSizeBytes,
    consumer_threads: workload.consumerThreads,
    producer_threads: workload.producerThreads,
    window_ms: workload.windowMs,
    warmup_ms: workload.warmupMs,
  };
}

/** How the windows ended, in the result's notes. */
const WINDOWS_ENDED: Record<PhaseOutcome['windowsEnded'], (workload: ConsumeWorkload) => string> = {
  steady: (workload) => `early: the last ${workload.minRounds} agreed within ${workload.steadyWithinPercent}%`,
  dry: () => 'early: the queue ran dry in a window, so the figure is producer-bound whatever followed',
  max: (workload) => `after all ${workload.rounds}: the rate was not steady within ${workload.steadyWithinPercent}% earlier`,
};

/**
 * The `sustained_consume` raw result of one configuration.
 * @throws RangeError when no window was measured.
 */
export function sustainedConsumeResult(outcome: SustainedConsumeOutcome): ResultDraft {
  const { workload, phase, report } = outcome;
  const windows = phase.windows;
  const msgRates = windows.map((window) => window.consumeRateMsgsPerSec);
  if (!isNonEmpty(msgRates)) throw new RangeError('sustained_consume needs at least one measured window');
  const bound = boundOf(windows);
  const depth = depthFigures(windows.map((window) => window.depth));
  const account = phase.account;
  return {
    name: 'sustained_consume',
    category: 'throughput',
    parameters: {
      ...workloadParameters(workload),
      rounds: workload.rounds,
    },
    metrics: {
      consume_throughput_msgs_per_sec: metric(summarizeRates(msgRates).median, 'msg/s', 'higher'),
      consume_throughput_mb_per_sec: metric(median(windows.map((window) => window.consumeRateMbPerSec)), 'MB/s', 'higher'),
      producer_rate_msgs_per_sec: metric(median(windows.map((window) => window.publishRateMsgsPerSec)), 'msg/s', 'none'),
      consumer_cpu_percent: metric(median(known(windows.map((window) => window.consumerCpuPercent))), '%', 'none'),
      consumer_cpu_us_per_msg: metric(median(known(windows.map((window) => window.cpuUsPerMessage))), 'µs', 'lower'),
      producer_bound_windows: metric(windows.filter((window) => window.depth.ranDry === true).length, 'count', 'lower'),
      unchecked_windows: metric(windows.filter((window) => window.depth.ranDry === null).length, 'count', 'lower'),
      queue_depth_min: metric(depth.min, 'count', 'none'),
      queue_depth_max: metric(depth.max, 'count', 'none'),
      consumer_startup_ms: metric(phase.startupMs, 'ms', 'lower'),
      messages_consumed: metric(account ? account.delivered : null, 'count', 'none'),
      messages_missing: metric(account ? Math.max(0, account.published - account.delivered - account.purged) : null, 'count', 'lower'),
      messages_extra: metric(account ? Math.max(0, account.delivered + account.purged - account.published) : null, 'count', 'lower'),
      errors: metric(report.errors.length, 'count', 'lower'),
    },
    samples: {
      consume_throughput_msgs_per_sec: msgRates.map(roundFigure),
      consume_throughput_mb_per_sec: windows.map((window) => roundFigure(window.consumeRateMbPerSec)),
      producer_rate_msgs_per_sec: windows.map((window) => roundFigure(window.publishRateMsgsPerSec)),
    },
    notes: sustainedConsumeNotes(outcome, bound),
    details: {
      bound,
      watermarks: {
        low_messages: workload.watermarks.lowMessages,
        high_messages: workload.watermarks.highMessages,
        start_messages: workload.startMessages,
      },
      // The start fill, part of account.published (the producers' own counts are the rest).
      start_fill: report.fill
        ? { messages: report.fill.messages, connections: report.fill.connections, fill_ms: report.fill.fillMs }
        : null,
      max_queue_length: workload.maxQueueLength,
      depth_sampling_ms: workload.depthSamplingMs,
      depth_samples: report.depthSamples,
      windows: windows.map(windowDetail),
      windows_ended: phase.windowsEnded,
      rate_spread_percent: roundFigure(summarizeRates(msgRates).spreadPercent),
      account: account
        ? { published: account.published, delivered: account.delivered, purged: account.purged, account_ms: roundFigure(account.accountMs) }
        : null,
      consumers_per_thread: [...workload.consumersPerThread],
      consumer_threads: report.consumers.map((thread) => ({
        thread: thread.thread,
        consumers: thread.consumers,
        delivered: thread.delivered,
      })),
      producers: report.producers.map((producer) => ({
        producer: producer.producer,
        published: producer.published,
        pauses: producer.pauses,
      })),
      errors: [...report.errors],
    },
  };
}

/** What a sustained consume result's figures mean, in its notes. */
function sustainedConsumeNotes(outcome: SustainedConsumeOutcome, bound: keyof typeof BOUND_NOTES): string[] {
  const { workload, phase } = outcome;
  const windows = phase.windows;
  return [
    `throughput: the median of ${windows.length} consecutive windows of ${workload.windowMs} ms of steady state, after ${workload.warmupMs} ms of warm-up (excluded); every window's rate is in samples`,
    ...(workload.minRounds < workload.rounds
      ? [
          `windows: ${workload.minRounds} to ${workload.rounds}, ended ${WINDOWS_ENDED[phase.windowsEnded](workload)} (details.windows_ended)`,
        ]
      : []),
    `rate counted on the consumers' side: each delivery bumps a shared-memory counter in its consumer thread and is acked (manual ack, prefetch ${workload.prefetch}); the main thread reads the counters and the monotonic clock at each window's edges`,
    `${workload.consumers} consumer(s) (one channel each) of the client under test on ${workload.consumerThreads} worker thread(s), one connection each, straight to the broker (no proxy), competing on one classic queue`,
    `producers: the queue was filled first with exactly ${workload.startMessages} messages (what the phase can drain, with a margin; the start fill: plain amqplib on ${outcome.report.fill?.connections ?? 'n/a'} harness connection(s), checked against the broker's ready count); then ${workload.producerThreads} harness thread(s) (plain amqplib, one connection each) keep it between ${workload.watermarks.lowMessages} and ${workload.watermarks.highMessages} ready messages, filling on towards the high mark through the warm-up and the windows; the broker's depth is sampled every ${workload.depthSamplingMs} ms, so a dry spell shorter than that can go unseen`,
    BOUND_NOTES[bound],
    `consumer_cpu_percent: CPU time the consumer thread(s) ran during a window (Linux /proc, 10 ms ticks), in % of one core, summed over threads; near ${workload.consumerThreads * 100}% the client is what bounds the rate, far below it the consumers waited (for the broker, or for a CPU they did not get); consumer_cpu_us_per_msg: that CPU time per delivery`,
    'messages_consumed/missing/extra: after the windows the producers stop, the queue is purged (the broker counts the ready messages it removes) and the consumers count what was already on its way to them; every message published in the session (the start fill and the producers) must be counted by a consumer or purged, exactly once (a delivery the client never handed over stays unacked, is not purged and counts as missing)',
    'MB/s counts message bodies only, 1 MB = 10^6 bytes',
  ];
}

/** A pair in which neither window ran dry and both were sampled: its ratio compares consumers, not producers. */
export function isCleanPair(pair: ConsumePair): boolean {
  return pair.harness.depth.ranDry === false && pair.bare.depth.ranDry === false;
}

/**
 * The `consume_harness_overhead` raw result: the median over the clean pairs (neither side's
 * window ran dry) of harness rate / bare rate x 100; over every pair when none is clean (said in
 * the notes). Pairs run back to back, so a pair shares the machine's load of the moment. The
 * target (at least 90%) is recorded, met or missed.
 * @throws RangeError when there is no pair.
 */
export function consumeOverheadResult(outcome: ConsumeOverheadOutcome): ResultDraft {
  const { workload, pairs } = outcome;
  const clean = pairs.filter(isCleanPair);
  const basis = clean.length > 0 ? clean : pairs;
  const ratios = basis.map((pair) => overheadRatioPercent(pair.harness.consumeRateMsgsPerSec, pair.bare.consumeRateMsgsPerSec));
  if (!isNonEmpty(ratios)) throw new RangeError('consume_harness_overhead needs at least one pair of windows');
  const ratio = summarizeRates(ratios).median;
  const harness = pairs.map((pair) => pair.harness.consumeRateMsgsPerSec);
  const bare = pairs.map((pair) => pair.bare.consumeRateMsgsPerSec);
  // CPU per message does not depend on how much CPU a side got, so it shows a cost the rates' noise can hide.
  const cpuRatios = known(
    pairs.map((pair) =>
      pair.harness.cpuUsPerMessage && pair.bare.cpuUsPerMessage ? (pair.bare.cpuUsPerMessage / pair.harness.cpuUsPerMessage) * 100 : null,
    ),
  );
  return {
    name: 'consume_harness_overhead',
    category: 'throughput',
    parameters: {
      ...workloadParameters(workload),
      pairs: pairs.length,
      bare_client: outcome.bareClient,
    },
    metrics: {
      ratio_percent: metric(ratio, '%', 'higher'),
      harness_msgs_per_sec: metric(median(harness), 'msg/s', 'higher'),
      bare_msgs_per_sec: metric(median(bare), 'msg/s', 'none'),
      cpu_efficiency_percent: metric(median(cpuRatios), '%', 'higher'),
      harness_cpu_us_per_msg: metric(median(known(pairs.map((pair) => pair.harness.cpuUsPerMessage))), 'µs', 'lower'),
      bare_cpu_us_per_msg: metric(median(known(pairs.map((pair) => pair.bare.cpuUsPerMessage))), 'µs', 'none'),
      producer_bound_pairs: metric(pairs.length - clean.length, 'count', 'lower'),
      errors: metric(outcome.report.errors.length, 'count', 'lower'),
    },
    samples: {
      ratio_percent: ratios.map(roundFigure),
      harness_msgs_per_sec: harness.map(roundFigure),
      bare_msgs_per_sec: bare.map(roundFigure),
      cpu_efficiency_percent: cpuRatios.map(roundFigure),
    },
    // Judged on the interval of the pairs that count (each one independent repetition of the check).
    targets: [judgedTarget({ metric: 'ratio_percent', comparator: '>', threshold: HARNESS_OVERHEAD_TARGET_PERCENT, unit: '%' }, ratios)],
    notes: [
      `ratio_percent: the median over ${basis.length} ${clean.length > 0 ? 'clean ' : ''}back-to-back pairs of harness rate / bare rate x 100 (the side that goes first alternates); target: at least ${HARNESS_OVERHEAD_TARGET_PERCENT}% (recorded, not asserted)`,
      clean.length === pairs.length
        ? 'every pair clean: the queue never ran dry in either window'
        : clean.length > 0
          ? `${pairs.length - clean.length} of ${pairs.length} pairs left out of the ratio: the queue ran dry (or was not sampled) in a window, so that pair compared the producers' pace`
          : `PRODUCER-BOUND: no pair was clean (the queue ran dry or was not sampled in a window of each), so the ratio compares the producers' pace, not the consumers`,
      `same workload on both sides, taking turns on the same queue fed by the same ${workload.producerThreads} producer thread(s): one long-lived connection, ${workload.consumers} consumer(s) with manual ack and prefetch ${workload.prefetch}, ${workload.messageSizeBytes}-byte messages, consumers started per turn, ${workload.warmupMs} ms of warm-up, one window of ${workload.windowMs} ms, then cancelled`,
      `harness: the client under test in a piscina worker thread, each delivery counted in shared memory and acked through the client interface; bare: scripts/bare-consume.js --client ${outcome.bareClient} --serve in its own Node.js process, counting and acking in the library's callback`,
      "cpu_efficiency_percent: the median over the pairs of bare CPU time per message / harness CPU time per message x 100, each side's consuming thread read from Linux /proc (10 ms ticks): 100 means the harness's path costs no more CPU per message than the library alone; unlike the rates, it does not move with how much CPU each side happened to get on a shared machine",
    ],
    details: {
      pairs: pairs.map((pair) => ({
        first: pair.first,
        clean: isCleanPair(pair),
        harness: windowDetail(pair.harness),
        bare: {
          duration_ms: roundFigure(pair.bare.durationMs),
          delivered: pair.bare.delivered,
          msgs_per_sec: roundFigure(pair.bare.consumeRateMsgsPerSec),
          cpu_us_per_msg: nullableFigure(pair.bare.cpuUsPerMessage),
          depth: depthDetail(pair.bare.depth),
        },
      })),
      errors: [...outcome.report.errors],
    },
  };
}
