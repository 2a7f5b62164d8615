/**
 * @benchmark
 *
 * Realistic workloads: producers and consumers at once, bursts, hundreds of consumers on a
 * bounded worker pool, workloads under periodic RSTs and under latency, and a recovery
 * correctness proof over sequence numbers. Consumers run in consumer worker threads (at most
 * four, each with a few connections and a channel + consumer per logical consumer), producers in
 * producer threads; every message carries its sequence number and publish time, and a shared
 * ledger counts every publish, confirm and delivery (src/realistic/). A table of scenarios over
 * the suite's defaults; each row is measured, judged and recorded by one call
 * (src/realistic/measureScenario.ts).
 *
 * What the client did wrong (lost messages, duplicates at-least-once does not explain, an error
 * nobody handled, a connection that never came back) is a finding: recorded with its evidence,
 * and the test passes (BENCH_FAIL_ON_FINDINGS=true fails it instead). What is asserted is the
 * harness's own part: its threads started, the fault acted, no bound of its own was hit.
 */
import { clientFields, forEachClient } from '../fixtures/clients';
import { benchContext } from '../fixtures/context';
import { formatMs, recordResult } from '../fixtures/record';
import { expectVerdictReached } from '../fixtures/verdict';
import type { ClientSpec } from '../src/client/api';
import { lossPercent } from '../src/suite-kit/accounting';
import type { ResetCycleOptions } from '../src/realistic/faultCycles';
import { measureRealisticScenario, type RealisticRow } from '../src/realistic/measureScenario';
import type { RoundSpec } from '../src/realistic/options';
import { accountMetrics, latencyHistograms, latencyMetrics, WORKLOAD_NOTES } from '../src/realistic/resultMetrics';
import { countMetric, msMetric, rateMetric } from '../src/results/metricValues';
import { drainTimes, phaseFigures } from '../src/realistic/summary';
import { markedTest } from '../src/testing';

const QUICK_TIMEOUT_MS = 90_000;
const STRESS_TIMEOUT_MS = 600_000;
const rate = (value: number | null): string => (value === null ? 'n/a' : `${Math.round(value)} msg/s`);

/** A warm-up round of `warmUp` messages, then `count` measured rounds of `messages` each. */
const rounds = (warmUp: number, count: number, messages: number, label = 'round', gapAfterMs?: number): RoundSpec[] => [
  { messages: warmUp, measured: false, label: 'warm-up', ...(gapAfterMs ? { gapAfterMs } : {}) },
  ...Array.from({ length: count }, (_, n) => ({ messages, label: `${label} ${n + 1}`, ...(gapAfterMs ? { gapAfterMs } : {}) })),
];

const BURST = { bursts: 5, messages: 2000, gapMs: 500 } as const;
const RESETS: ResetCycleOptions = { cycles: 3, firstAfterMs: 1000, intervalMs: 1500, holdMs: 250, untilEveryConnectionHitMs: 1000 };
const RESETS_RATE = { messages: 6000, perSecond: 1000 } as const;
const LATENCY = { latencyMs: 200, jitterMs: 100, messages: 1500, perSecond: 500 } as const;
const CORRECTNESS: ResetCycleOptions = { cycles: 3, firstAfterMs: 800, intervalMs: 1200, holdMs: 200, untilEveryConnectionHitMs: 900 };
const CORRECTNESS_RATE = { messages: 4000, perSecond: 800 } as const;

/** Hundreds of consumers on at most four worker threads; the quick run's row is the same path at 20. */
function massiveConsumers(consumers: number, messages: number, roundBoundMs: number): RealisticRow {
  return {
    test: 'test_massive_consumers',
    scenario: 'massive_consumers',
    workload: { consumers, maxConsumerThreads: 4, roundBoundMs, rounds: rounds(Math.min(messages, 1000), 3, messages) },
    layout: ['consumers', 'worker_threads', 'producer_threads', 'prefetch', 'message_bytes'],
    parameters: { messages, rounds: 3 },
    result: ({ outcome, figures }) => ({
      metrics: {
        consumer_startup_ms: msMetric(outcome.consumerStartupMs),
        ...accountMetrics(figures.account),
        connections: countMetric(outcome.plan.reduce((sum, thread) => sum + thread.connections.length, 0)),
      },
      notes: [
        `consumer_startup_ms: consumer tasks dispatched to the ${outcome.plan.length} worker threads -> all ${consumers} consumers consuming (basic.consume-ok)`,
        'messages: per round, all producers together; consumers compete on one queue',
      ],
    }),
    progress: ({ outcome, figures }) =>
      `${consumers} consumers on ${outcome.plan.length} threads: start-up ${formatMs(outcome.consumerStartupMs)}, produce ${rate(figures.produceRateMsgsPerSec)}, consume ${rate(figures.consumeRateMsgsPerSec)}, ` +
      `e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, loss ${lossPercent(figures.account).toFixed(2)}%`,
    // Hundreds of consumers never mean hundreds of threads.
    harnessChecks: ({ outcome }) => (outcome.plan.length <= 4 ? [] : [`${outcome.plan.length} consumer threads (at most 4)`]),
  };
}
const ROWS: readonly RealisticRow[] = [
  {
    test: 'test_concurrent_produce_consume',
    scenario: 'realistic_concurrent_produce_consume',
    workload: { rounds: rounds(2000, 3, 10_000) },
    layout: ['consumers', 'consumer_threads', 'producer_threads', 'prefetch', 'message_bytes'],
    parameters: { messages_per_round: 10_000, rounds: 3 },
    result: ({ figures }) => ({
      metrics: accountMetrics(figures.account),
      notes: [
        'producers publish as fast as flow control allows while the consumers (manual ack, prefetch) consume the same queue; when the producers outrun the consumers a backlog builds, and the e2e latency is mostly time spent queued',
      ],
    }),
    progress: ({ figures }) =>
      `produce ${rate(figures.produceRateMsgsPerSec)}, consume ${rate(figures.consumeRateMsgsPerSec)}, e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, lost ${figures.account.lost}`,
  },
  {
    test: 'test_burst_traffic',
    scenario: 'realistic_burst_traffic',
    workload: { rounds: rounds(500, BURST.bursts, BURST.messages, 'burst', BURST.gapMs) },
    layout: ['consumers', 'consumer_threads', 'producer_threads'],
    parameters: { bursts: BURST.bursts, messages_per_burst: BURST.messages, idle_gap_ms: BURST.gapMs },
    result: ({ figures }) => {
      const drains = drainTimes(figures.rounds);
      return {
        // The burst figures first: they are what this test is about.
        metrics: (throughput) => ({
          burst_drain_p50_ms: msMetric(drains.medianMs),
          burst_drain_max_ms: msMetric(drains.maxMs),
          ...throughput,
          ...accountMetrics(figures.account),
        }),
        samples: { burst_drain_ms: drains.samples },
        notes: [
          'burst drain time: first producer starting the burst -> last message of the burst delivered; the next burst starts after the previous one drained plus the idle gap',
        ],
      };
    },
    progress: ({ figures }) => {
      const drains = drainTimes(figures.rounds);
      return `${BURST.bursts}×${BURST.messages} msgs: drain p50 ${formatMs(drains.medianMs)} max ${formatMs(drains.maxMs)}, e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, lost ${figures.account.lost}`;
    },
  },
  {
    test: 'test_workload_under_periodic_resets',
    scenario: 'realistic_periodic_resets',
    workload: {
      confirms: true,
      recover: true,
      rounds: [
        { messages: 300, measured: false, label: 'warm-up' },
        { messages: RESETS_RATE.messages, ratePerSecond: RESETS_RATE.perSecond, label: 'under resets' },
      ],
    },
    throughProxy: { consumers: true, producers: true },
    fault: { kind: 'reset_cycles', round: 1, schedule: RESETS },
    layout: ['consumers', 'consumer_threads', 'producer_threads'],
    parameters: {
      messages: RESETS_RATE.messages,
      target_rate_msgs_per_sec: RESETS_RATE.perSecond,
      reset_cycles: RESETS.cycles,
      reset_interval_ms: RESETS.intervalMs,
      reset_hold_ms: RESETS.holdMs,
    },
    result: ({ outcome, figures, cycles }) => ({
      metrics: {
        consumer_reconnects: countMetric(outcome.consumerReconnects),
        producer_reconnects: countMetric(outcome.producerReconnects),
        reset_cycles: countMetric(cycles?.cycles.length ?? 0),
        ...accountMetrics(figures.account),
      },
      notes: [
        'consumers and producers connect through the fault proxy; a reset_peer toxic (timeout 0) is added and removed on a schedule while the producers publish at the target rate; clients reconnect with backoff (ensureConnection) and carry on',
        `each reset stays at least reset_hold_ms, then until every connection open at its injection was reset (the embedded proxy's timeline), at most ${RESETS.untilEveryConnectionHitMs} ms more: a connection that carries data only now and then is hit too; details.fault_cycles has each cycle's moments`,
        'producers use publisher confirms and publish again what was unconfirmed at a fault (at-least-once); consumers ack manually after counting',
        'the rate is paced: the throughput shows what the faults cost against the target rate, not the peak',
      ],
      details: {
        fault_cycles: cycles?.cycles.map((cycle) => ({ injected_ns: String(cycle.injectedNs), removed_ns: String(cycle.removedNs) })),
      },
    }),
    progress: ({ outcome, figures, cycles }) =>
      `${cycles?.cycles.length ?? 0} RST cycles: consume ${rate(figures.consumeRateMsgsPerSec)} (target ${RESETS_RATE.perSecond}), reconnects ${outcome.consumerReconnects} consumer + ${outcome.producerReconnects} producer, ` +
      `lost ${figures.account.lost}, duplicates ${figures.account.duplicates} (${figures.account.unexplainedDuplicates} unexplained), e2e p99 ${formatMs(figures.latency.p99)} (from schedule ${formatMs(figures.scheduleLatency.p99)})`,
  },
  {
    test: 'test_workload_under_latency',
    scenario: 'realistic_latency',
    workload: {
      producerThreads: 1,
      rounds: [
        { messages: 300, measured: false, label: 'warm-up' },
        { messages: LATENCY.messages, ratePerSecond: LATENCY.perSecond, label: 'baseline' },
        { messages: LATENCY.messages, ratePerSecond: LATENCY.perSecond, label: 'latency' },
      ],
    },
    throughProxy: { consumers: true },
    fault: {
      kind: 'during_round',
      round: 2,
      fault: { kind: 'latency', options: { latency_ms: LATENCY.latencyMs, jitter_ms: LATENCY.jitterMs } },
    },
    layout: ['consumers', 'consumer_threads'],
    parameters: {
      latency_ms: LATENCY.latencyMs,
      jitter_ms: LATENCY.jitterMs,
      messages_per_phase: LATENCY.messages,
      target_rate_msgs_per_sec: LATENCY.perSecond,
    },
    result: ({ figures }) => {
      const [baseline, slowed] = [phaseFigures(figures.rounds, 'baseline'), phaseFigures(figures.rounds, 'latency')];
      return {
        figures: slowed,
        metrics: {
          ...latencyMetrics('baseline_e2e_latency', baseline.latency),
          baseline_consume_throughput_msgs_per_sec: rateMetric(baseline.consumeRateMsgsPerSec),
          added_latency_p50_ms: msMetric(
            slowed.latency.p50 !== null && baseline.latency.p50 !== null ? slowed.latency.p50 - baseline.latency.p50 : null,
          ),
          ...accountMetrics(figures.account),
        },
        histograms: { ...latencyHistograms(slowed), ...latencyHistograms(baseline, 'baseline_') },
        notes: [
          `consumers connect through the fault proxy, producers directly; the same paced phase runs without a toxic (baseline_*) and with a latency toxic of ${LATENCY.latencyMs}±${LATENCY.jitterMs} ms on the broker-to-consumer stream (the unprefixed figures)`,
        ],
      };
    },
    progress: ({ figures }) => {
      const [baseline, slowed] = [phaseFigures(figures.rounds, 'baseline'), phaseFigures(figures.rounds, 'latency')];
      return `latency ${LATENCY.latencyMs}±${LATENCY.jitterMs} ms: consume ${rate(slowed.consumeRateMsgsPerSec)} (baseline ${rate(baseline.consumeRateMsgsPerSec)}), e2e p50 ${formatMs(slowed.latency.p50)} p99 ${formatMs(slowed.latency.p99)} (baseline p50 ${formatMs(baseline.latency.p50)})`;
    },
    // The fault acted: no message can arrive faster than latency - jitter.
    harnessChecks: ({ figures }) => {
      const p50 = phaseFigures(figures.rounds, 'latency').latency.p50;
      const floor = LATENCY.latencyMs - LATENCY.jitterMs;
      return p50 !== null && p50 >= floor ? [] : [`the latency toxic did not act: e2e p50 ${formatMs(p50)} under it, below ${floor} ms`];
    },
  },
  {
    test: 'test_recovery_correctness_sequence_numbers',
    scenario: 'realistic_recovery_correctness',
    workload: {
      confirms: true,
      persistent: true,
      durableQueue: true,
      recover: true,
      rounds: [{ messages: CORRECTNESS_RATE.messages, ratePerSecond: CORRECTNESS_RATE.perSecond, label: 'sequence run' }],
    },
    throughProxy: { consumers: true, producers: true },
    fault: { kind: 'reset_cycles', round: 0, schedule: CORRECTNESS },
    layout: ['consumers', 'producer_threads'],
    parameters: {
      messages: CORRECTNESS_RATE.messages,
      target_rate_msgs_per_sec: CORRECTNESS_RATE.perSecond,
      reset_cycles: CORRECTNESS.cycles,
      persistent: true,
      durable_queue: true,
      confirms: true,
    },
    result: ({ outcome, figures: { account }, cycles }) => ({
      // The accounting first: it is what this test proves.
      metrics: (throughput) => ({
        ...accountMetrics(account),
        delivered_unconfirmed: countMetric(account.deliveredUnconfirmed),
        consumer_reconnects: countMetric(outcome.consumerReconnects),
        producer_reconnects: countMetric(outcome.producerReconnects),
        reset_cycles: countMetric(cycles?.cycles.length ?? 0),
        ...throughput,
      }),
      ownNotesOnly: true,
      notes: [
        'every message carries a unique sequence number; a shared ledger counts publish copies, confirms, deliveries and deliveries flagged redelivered per sequence number',
        'no loss: every confirmed sequence number was delivered at least once',
        `each reset stays at least ${CORRECTNESS.holdMs} ms, then until every connection open at its injection was reset, at most ${CORRECTNESS.untilEveryConnectionHitMs} ms more`,
        'duplicates allowed by at-least-once: a delivery flagged redelivered (its ack died with a connection), or one more unflagged delivery per extra publish copy (republished because unconfirmed when the fault hit); anything else is an unexplained duplicate',
        ...WORKLOAD_NOTES.slice(0, 2),
      ],
      details: { lost_seqs: account.lostSeqs, unexplained_seqs: account.unexplainedSeqs },
    }),
    progress: ({ figures: { account } }) =>
      `published ${account.published} (+${account.republished} republished), confirmed ${account.confirmed}, delivered ${account.deliveredUnique} (${account.deliveries} deliveries), ` +
      `duplicates ${account.duplicates} (${account.redeliveries} redelivered, ${account.unexplainedDuplicates} unexplained), lost ${account.lost}`,
  },
];

async function measure(client: ClientSpec, row: RealisticRow): Promise<void> {
  const context = benchContext();
  const verdict = await measureRealisticScenario(row, {
    client,
    clientFields: clientFields(client),
    directUrl: context.directUrl,
    proxiedUrl: context.proxiedUrl,
    proxy: context.proxy,
    record: (draft, progress) => recordResult(draft, progress),
  });
  expectVerdictReached(verdict);
}

forEachClient((client) =>
  describe('TestRealisticWorkloads', () => {
    for (const row of ROWS) markedTest()(row.test, () => measure(client, row), QUICK_TIMEOUT_MS);
    // The same path as the stress sizes, small enough for the quick run.
    markedTest()('test_massive_consumers[20-200]', () => measure(client, massiveConsumers(20, 200, 20_000)), QUICK_TIMEOUT_MS);
    markedTest(['stress']).each([
      [100, 1000],
      [500, 2000],
      [900, 3000],
    ])(
      'test_massive_consumers_stress[%i-%i]',
      (consumers, messages) => measure(client, massiveConsumers(consumers, messages, 60_000)),
      STRESS_TIMEOUT_MS,
    );
  }),
);
