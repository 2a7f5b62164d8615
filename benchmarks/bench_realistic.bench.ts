/**
 * @benchmark
 *
 * Realistic workloads: producers and consumers at once, bursts, hundreds of consumers on a
 * bounded worker pool, workloads under periodic RSTs and under latency, and a recovery
 * correctness proof over sequence numbers. Consumers run in consumer worker threads (at most
 * four, each with a few connections and a channel + consumer per logical consumer), producers in
 * producer threads; every message carries its sequence number and publish time, and a shared
 * ledger counts every publish, confirm and delivery (src/realistic/).
 *
 * Correctness is asserted (nothing lost, duplicates only where at-least-once allows, every
 * connection recovered, no hang); speed is recorded.
 */
import type { ClientSpec } from '../src/client/api';
import { clientFields, forEachClient } from '../fixtures/clients';
import { benchContext } from '../fixtures/context';
import { formatMs, recordResult } from '../fixtures/record';
import { toxicLatency, type ActiveToxic } from '../src/faults';
import { quantile, sortSamples } from '../src/measure/statistics';
import { lossPercent as accountLossPercent } from '../src/suite-kit/accounting';
import { faultProblems, workloadProblems } from '../src/realistic/checks';
import { resetCyclesDuringRound, type ResetCycleOptions } from '../src/realistic/faultCycles';
import type { WorkloadInput } from '../src/realistic/options';
import {
  WORKLOAD_NOTES,
  accountMetrics,
  countMetric,
  latencyHistograms,
  latencyMetrics,
  msMetric,
  rateMetric,
  roundSamples,
  throughputMetrics,
  workloadDetails,
} from '../src/realistic/resultMetrics';
import { aggregateRounds, workloadFigures, type WorkloadFigures } from '../src/realistic/summary';
import { runWorkload, type WorkloadOutcome } from '../src/realistic/workload';
import { markedTest } from '../src/testing';

const QUICK_TIMEOUT_MS = 90_000;
const STRESS_TIMEOUT_MS = 600_000;
/** Quick tests: a round that has not drained by then is a failure, reported before Jest's timeout. */
const QUICK_ROUND_BOUND_MS = 20_000;
const fmtRate = (value: number | null): string => (value === null ? 'n/a' : `${Math.round(value)} msg/s`);

async function runMeasured(input: WorkloadInput & { client: ClientSpec }): Promise<{ outcome: WorkloadOutcome; figures: WorkloadFigures }> {
  const outcome = await runWorkload(input);
  return { outcome, figures: workloadFigures(outcome) };
}

async function measureMassiveConsumers(client: ClientSpec, consumers: number, messages: number, roundBoundMs: number): Promise<void> {
  const { directUrl } = benchContext();
  const { outcome, figures } = await runMeasured({
    client,
    directUrl,
    consumers,
    producerThreads: 2,
    maxConsumerThreads: 4,
    roundBoundMs,
    rounds: [
      { messages: Math.min(messages, 1000), measured: false, label: 'warm-up' },
      ...Array.from({ length: 3 }, (_, index) => ({ messages, label: `round ${index + 1}` })),
    ],
  });
  const lossPercent = accountLossPercent(figures.account);
  recordResult(
    {
      name: 'massive_consumers',
      category: 'scalability',
      client: clientFields(client).client,
      parameters: {
        ...clientFields(client).parameters,
        consumers,
        messages,
        rounds: 3,
        worker_threads: outcome.plan.length,
        producer_threads: 2,
        prefetch: outcome.options.prefetch,
        message_bytes: outcome.options.messageBytes,
      },
      metrics: {
        ...throughputMetrics(figures),
        consumer_startup_ms: msMetric(outcome.consumerStartupMs),
        ...accountMetrics(figures.account),
        connections: countMetric(outcome.plan.reduce((sum, thread) => sum + thread.connections.length, 0)),
      },
      samples: roundSamples(figures.rounds),
      histograms: latencyHistograms(figures),
      notes: [
        ...WORKLOAD_NOTES,
        `consumer_startup_ms: consumer tasks dispatched to the ${outcome.plan.length} worker threads -> all ${consumers} consumers consuming (basic.consume-ok)`,
        'messages: per round, all producers together; consumers compete on one queue',
      ],
      details: workloadDetails(outcome, figures),
    },
    `${consumers} consumers on ${outcome.plan.length} threads: start-up ${formatMs(outcome.consumerStartupMs)}, produce ${fmtRate(figures.produceRateMsgsPerSec)}, consume ${fmtRate(figures.consumeRateMsgsPerSec)}, ` +
      `e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, loss ${lossPercent.toFixed(2)}%`,
  );
  expect(workloadProblems(outcome, figures)).toEqual([]);
  // Hundreds of consumers never mean hundreds of threads.
  expect(outcome.plan.length).toBeLessThanOrEqual(4);
  expect(figures.account.duplicates).toBe(0);
}

forEachClient((client) =>
  describe('TestRealisticWorkloads', () => {
    markedTest()(
      'test_concurrent_produce_consume',
      async () => {
        const { directUrl } = benchContext();
        const consumers = 4;
        const { outcome, figures } = await runMeasured({
          client,
          directUrl,
          consumers,
          producerThreads: 2,
          maxConsumerThreads: 2,
          roundBoundMs: QUICK_ROUND_BOUND_MS,
          rounds: [
            { messages: 2000, measured: false, label: 'warm-up' },
            ...[1, 2, 3].map((n) => ({ messages: 10_000, label: `round ${n}` })),
          ],
        });
        recordResult(
          {
            name: 'realistic_concurrent_produce_consume',
            category: 'scalability',
            client: clientFields(client).client,
            parameters: {
              ...clientFields(client).parameters,
              consumers,
              consumer_threads: outcome.plan.length,
              producer_threads: 2,
              messages_per_round: 10_000,
              rounds: 3,
              prefetch: outcome.options.prefetch,
              message_bytes: outcome.options.messageBytes,
            },
            metrics: { ...throughputMetrics(figures), ...accountMetrics(figures.account) },
            samples: roundSamples(figures.rounds),
            histograms: latencyHistograms(figures),
            notes: [
              ...WORKLOAD_NOTES,
              'producers publish as fast as flow control allows while the consumers (manual ack, prefetch) consume the same queue; when the producers outrun the consumers a backlog builds, and the e2e latency is mostly time spent queued',
            ],
            details: workloadDetails(outcome, figures),
          },
          `produce ${fmtRate(figures.produceRateMsgsPerSec)}, consume ${fmtRate(figures.consumeRateMsgsPerSec)}, e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, lost ${figures.account.lost}`,
        );
        expect(workloadProblems(outcome, figures)).toEqual([]);
        expect(figures.account.duplicates).toBe(0);
      },
      QUICK_TIMEOUT_MS,
    );

    markedTest()(
      'test_burst_traffic',
      async () => {
        const { directUrl } = benchContext();
        const bursts = 5;
        const burstMessages = 2000;
        const gapMs = 500;
        const { outcome, figures } = await runMeasured({
          client,
          directUrl,
          consumers: 4,
          producerThreads: 2,
          maxConsumerThreads: 2,
          roundBoundMs: QUICK_ROUND_BOUND_MS,
          rounds: [
            { messages: 500, measured: false, label: 'warm-up', gapAfterMs: gapMs },
            ...Array.from({ length: bursts }, (_, n) => ({ messages: burstMessages, label: `burst ${n + 1}`, gapAfterMs: gapMs })),
          ],
        });
        const drains = figures.rounds.filter((round) => round.measured).flatMap((round) => (round.drainMs === null ? [] : [round.drainMs]));
        const sortedDrains = sortSamples(drains);
        const medianDrainMs = sortedDrains ? quantile(sortedDrains, 0.5) : null;
        const maxDrainMs = sortedDrains ? quantile(sortedDrains, 1) : null;
        recordResult(
          {
            name: 'realistic_burst_traffic',
            category: 'scalability',
            client: clientFields(client).client,
            parameters: {
              ...clientFields(client).parameters,
              bursts,
              messages_per_burst: burstMessages,
              idle_gap_ms: gapMs,
              consumers: 4,
              consumer_threads: outcome.plan.length,
              producer_threads: 2,
            },
            metrics: {
              burst_drain_p50_ms: msMetric(medianDrainMs),
              burst_drain_max_ms: msMetric(maxDrainMs),
              ...throughputMetrics(figures),
              ...accountMetrics(figures.account),
            },
            samples: { ...roundSamples(figures.rounds), burst_drain_ms: drains },
            histograms: latencyHistograms(figures),
            notes: [
              ...WORKLOAD_NOTES,
              'burst drain time: first producer starting the burst -> last message of the burst delivered; the next burst starts after the previous one drained plus the idle gap',
            ],
            details: workloadDetails(outcome, figures),
          },
          `${bursts}×${burstMessages} msgs: drain p50 ${formatMs(medianDrainMs)} max ${formatMs(maxDrainMs)}, e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, lost ${figures.account.lost}`,
        );
        expect(workloadProblems(outcome, figures)).toEqual([]);
        expect(figures.account.duplicates).toBe(0);
      },
      QUICK_TIMEOUT_MS,
    );

    // The same path as the stress sizes, small enough for the quick run.
    markedTest()('test_massive_consumers[20-200]', () => measureMassiveConsumers(client, 20, 200, QUICK_ROUND_BOUND_MS), QUICK_TIMEOUT_MS);

    markedTest(['stress']).each([
      [100, 1000],
      [500, 2000],
      [900, 3000],
    ])(
      'test_massive_consumers_stress[%i-%i]',
      (consumers, messages) => measureMassiveConsumers(client, consumers, messages, 60_000),
      STRESS_TIMEOUT_MS,
    );

    markedTest()(
      'test_workload_under_periodic_resets',
      async () => {
        const { directUrl, proxiedUrl, proxy } = benchContext();
        const schedule: ResetCycleOptions = { cycles: 3, firstAfterMs: 1000, intervalMs: 1500, holdMs: 250 };
        const faults = resetCyclesDuringRound(proxy, 1, schedule);
        const rate = 1000;
        const messages = 6000;
        const { outcome, figures } = await runMeasured({
          client,
          directUrl,
          consumerUrl: proxiedUrl,
          producerUrl: proxiedUrl,
          consumers: 4,
          producerThreads: 2,
          maxConsumerThreads: 2,
          roundBoundMs: QUICK_ROUND_BOUND_MS,
          confirms: true,
          recover: true,
          rounds: [
            { messages: 300, measured: false, label: 'warm-up' },
            { messages, ratePerSecond: rate, label: 'under resets' },
          ],
          hooks: faults.hooks,
        });
        const cycles = faults.result();
        recordResult(
          {
            name: 'realistic_periodic_resets',
            category: 'resilience',
            client: clientFields(client).client,
            parameters: {
              ...clientFields(client).parameters,
              consumers: 4,
              consumer_threads: outcome.plan.length,
              producer_threads: 2,
              messages,
              target_rate_msgs_per_sec: rate,
              reset_cycles: schedule.cycles,
              reset_interval_ms: schedule.intervalMs,
              reset_hold_ms: schedule.holdMs,
            },
            metrics: {
              ...throughputMetrics(figures),
              consumer_reconnects: countMetric(outcome.consumerReconnects),
              producer_reconnects: countMetric(outcome.producerReconnects),
              reset_cycles: countMetric(cycles?.cycles.length ?? 0),
              ...accountMetrics(figures.account),
            },
            samples: roundSamples(figures.rounds),
            histograms: latencyHistograms(figures),
            notes: [
              ...WORKLOAD_NOTES,
              'consumers and producers connect through the fault proxy; a reset_peer toxic (timeout 0) is added and removed on a schedule while the producers publish at the target rate; clients reconnect with backoff (ensureConnection) and carry on',
              'producers use publisher confirms and publish again what was unconfirmed at a fault (at-least-once); consumers ack manually after counting',
              'the rate is paced: the throughput shows what the faults cost against the target rate, not the peak',
            ],
            details: {
              ...workloadDetails(outcome, figures),
              fault_cycles: cycles?.cycles.map((cycle) => ({ injected_ns: String(cycle.injectedNs), removed_ns: String(cycle.removedNs) })),
            },
          },
          `${cycles?.cycles.length ?? 0} RST cycles: consume ${fmtRate(figures.consumeRateMsgsPerSec)} (target ${rate}), reconnects ${outcome.consumerReconnects} consumer + ${outcome.producerReconnects} producer, ` +
            `lost ${figures.account.lost}, duplicates ${figures.account.duplicates} (${figures.account.unexplainedDuplicates} unexplained), e2e p99 ${formatMs(figures.latency.p99)} (from schedule ${formatMs(figures.scheduleLatency.p99)})`,
        );
        expect([...workloadProblems(outcome, figures), ...faultProblems(outcome, cycles, schedule.cycles)]).toEqual([]);
      },
      QUICK_TIMEOUT_MS,
    );

    markedTest()(
      'test_workload_under_latency',
      async () => {
        const { directUrl, proxiedUrl, proxy } = benchContext();
        const latencyMs = 200;
        const jitterMs = 100;
        const rate = 500;
        const messages = 1500;
        let toxic: ActiveToxic | undefined;
        const { outcome, figures } = await runMeasured({
          client,
          directUrl,
          consumerUrl: proxiedUrl,
          consumers: 4,
          producerThreads: 1,
          maxConsumerThreads: 2,
          roundBoundMs: QUICK_ROUND_BOUND_MS,
          rounds: [
            { messages: 300, measured: false, label: 'warm-up' },
            { messages, ratePerSecond: rate, label: 'baseline' },
            { messages, ratePerSecond: rate, label: 'latency' },
          ],
          hooks: {
            beforeRound: async (index) => {
              if (index === 2) toxic = await toxicLatency(proxy, latencyMs, jitterMs);
            },
            afterRound: async (index) => {
              if (index === 2) await toxic?.remove();
            },
          },
        });
        const baseline = aggregateRounds(figures.rounds.filter((round) => round.label === 'baseline'));
        const slowed = aggregateRounds(figures.rounds.filter((round) => round.label === 'latency'));
        recordResult(
          {
            name: 'realistic_latency',
            category: 'resilience',
            client: clientFields(client).client,
            parameters: {
              ...clientFields(client).parameters,
              consumers: 4,
              consumer_threads: outcome.plan.length,
              latency_ms: latencyMs,
              jitter_ms: jitterMs,
              messages_per_phase: messages,
              target_rate_msgs_per_sec: rate,
            },
            metrics: {
              ...throughputMetrics(slowed),
              ...latencyMetrics('baseline_e2e_latency', baseline.latency),
              baseline_consume_throughput_msgs_per_sec: rateMetric(baseline.consumeRateMsgsPerSec),
              added_latency_p50_ms: msMetric(
                slowed.latency.p50 !== null && baseline.latency.p50 !== null ? slowed.latency.p50 - baseline.latency.p50 : null,
              ),
              ...accountMetrics(figures.account),
            },
            samples: roundSamples(figures.rounds),
            histograms: { ...latencyHistograms(slowed), ...latencyHistograms(baseline, 'baseline_') },
            notes: [
              ...WORKLOAD_NOTES,
              `consumers connect through the fault proxy, producers directly; the same paced phase runs without a toxic (baseline_*) and with a latency toxic of ${latencyMs}±${jitterMs} ms on the broker-to-consumer stream (the unprefixed figures)`,
            ],
            details: workloadDetails(outcome, figures),
          },
          `latency ${latencyMs}±${jitterMs} ms: consume ${fmtRate(slowed.consumeRateMsgsPerSec)} (baseline ${fmtRate(baseline.consumeRateMsgsPerSec)}), e2e p50 ${formatMs(slowed.latency.p50)} p99 ${formatMs(slowed.latency.p99)} (baseline p50 ${formatMs(baseline.latency.p50)})`,
        );
        expect(workloadProblems(outcome, figures)).toEqual([]);
        // The toxic acted: no message can arrive faster than latency - jitter.
        expect(slowed.latency.p50).toBeGreaterThanOrEqual(latencyMs - jitterMs);
      },
      QUICK_TIMEOUT_MS,
    );

    markedTest()(
      'test_recovery_correctness_sequence_numbers',
      async () => {
        const { directUrl, proxiedUrl, proxy } = benchContext();
        const schedule: ResetCycleOptions = { cycles: 3, firstAfterMs: 800, intervalMs: 1200, holdMs: 200 };
        const faults = resetCyclesDuringRound(proxy, 0, schedule);
        const messages = 4000;
        const rate = 800;
        const { outcome, figures } = await runMeasured({
          client,
          directUrl,
          consumerUrl: proxiedUrl,
          producerUrl: proxiedUrl,
          consumers: 4,
          producerThreads: 2,
          maxConsumerThreads: 2,
          roundBoundMs: QUICK_ROUND_BOUND_MS,
          confirms: true,
          persistent: true,
          durableQueue: true,
          recover: true,
          rounds: [{ messages, ratePerSecond: rate, label: 'sequence run' }],
          hooks: faults.hooks,
        });
        const cycles = faults.result();
        const { account } = figures;
        recordResult(
          {
            name: 'realistic_recovery_correctness',
            category: 'resilience',
            client: clientFields(client).client,
            parameters: {
              ...clientFields(client).parameters,
              consumers: 4,
              producer_threads: 2,
              messages,
              target_rate_msgs_per_sec: rate,
              reset_cycles: schedule.cycles,
              persistent: true,
              durable_queue: true,
              confirms: true,
            },
            metrics: {
              ...accountMetrics(account),
              delivered_unconfirmed: countMetric(account.deliveredUnconfirmed),
              consumer_reconnects: countMetric(outcome.consumerReconnects),
              producer_reconnects: countMetric(outcome.producerReconnects),
              reset_cycles: countMetric(cycles?.cycles.length ?? 0),
              ...throughputMetrics(figures),
            },
            samples: roundSamples(figures.rounds),
            histograms: latencyHistograms(figures),
            notes: [
              'every message carries a unique sequence number; a shared ledger counts publish copies, confirms, deliveries and deliveries flagged redelivered per sequence number',
              'no loss: every confirmed sequence number was delivered at least once',
              'duplicates allowed by at-least-once: a delivery flagged redelivered (its ack died with a connection), or one more unflagged delivery per extra publish copy (republished because unconfirmed when the fault hit); anything else is an unexplained duplicate',
              ...WORKLOAD_NOTES.slice(0, 2),
            ],
            details: { ...workloadDetails(outcome, figures), lost_seqs: account.lostSeqs, unexplained_seqs: account.unexplainedSeqs },
          },
          `published ${account.published} (+${account.republished} republished), confirmed ${account.confirmed}, delivered ${account.deliveredUnique} (${account.deliveries} deliveries), ` +
            `duplicates ${account.duplicates} (${account.redeliveries} redelivered, ${account.unexplainedDuplicates} unexplained), lost ${account.lost}`,
        );
        expect([...workloadProblems(outcome, figures), ...faultProblems(outcome, cycles, schedule.cycles)]).toEqual([]);
        expect(account.confirmed).toBe(messages);
        expect(account.lost).toBe(0);
        expect(account.unexplainedDuplicates).toBe(0);
      },
      QUICK_TIMEOUT_MS,
    );
  }),
);
