/**
 * @benchmark
 *
 * Realistic workloads: producers and consumers at once, bursts, hundreds of consumers on a
 * bounded worker pool, workloads under periodic RSTs and under latency, and a recovery
 * correctness proof over sequence numbers. Consumers run in consumer worker threads (at most
 * four, each with a few connections and a channel + consumer per logical consumer), producers in
 * producer threads; every message carries its sequence number and publish time, and a shared
 * ledger counts every publish, confirm and delivery (src/realistic/). Each test runs its workload
 * with the suite's defaults and drafts its result the suite's way (src/realistic/measureScenario.ts),
 * adding only its own parameters, figures and notes.
 *
 * Correctness is asserted (nothing lost, duplicates only where at-least-once allows, every
 * connection recovered, no hang); speed is recorded.
 */
import type { ClientSpec } from '../src/client/api';
import { clientFields, forEachClient } from '../fixtures/clients';
import { benchContext } from '../fixtures/context';
import { formatMs, recordResult } from '../fixtures/record';
import { createFault } from '../src/faults/kinds/registry';
import type { Fault } from '../src/faults/model';
import { quantile, sortSamples } from '../src/measure/statistics';
import { lossPercent as accountLossPercent } from '../src/suite-kit/accounting';
import { faultProblems, workloadProblems } from '../src/realistic/checks';
import { resetCyclesDuringRound, type ResetCycleOptions } from '../src/realistic/faultCycles';
import { realisticDraft, realisticProgress, runRealisticWorkload } from '../src/realistic/measureScenario';
import {
  accountMetrics,
  countMetric,
  latencyHistograms,
  latencyMetrics,
  msMetric,
  rateMetric,
  WORKLOAD_NOTES,
} from '../src/realistic/resultMetrics';
import { aggregateRounds } from '../src/realistic/summary';
import { markedTest } from '../src/testing';

const QUICK_TIMEOUT_MS = 90_000;
const STRESS_TIMEOUT_MS = 600_000;
const fmtRate = (value: number | null): string => (value === null ? 'n/a' : `${Math.round(value)} msg/s`);

async function measureMassiveConsumers(client: ClientSpec, consumers: number, messages: number, roundBoundMs: number): Promise<void> {
  const scenario = 'massive_consumers';
  const run = await runRealisticWorkload(client, {
    directUrl: benchContext().directUrl,
    consumers,
    maxConsumerThreads: 4,
    roundBoundMs,
    rounds: [
      { messages: Math.min(messages, 1000), measured: false, label: 'warm-up' },
      ...Array.from({ length: 3 }, (_, index) => ({ messages, label: `round ${index + 1}` })),
    ],
  });
  const { outcome, figures } = run;
  recordResult(
    realisticDraft({
      scenario,
      clientFields: clientFields(client),
      run,
      parameters: {
        consumers,
        messages,
        rounds: 3,
        worker_threads: outcome.plan.length,
        producer_threads: 2,
        prefetch: outcome.options.prefetch,
        message_bytes: outcome.options.messageBytes,
      },
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
    realisticProgress(
      scenario,
      `${consumers} consumers on ${outcome.plan.length} threads: start-up ${formatMs(outcome.consumerStartupMs)}, produce ${fmtRate(figures.produceRateMsgsPerSec)}, consume ${fmtRate(figures.consumeRateMsgsPerSec)}, ` +
        `e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, loss ${accountLossPercent(figures.account).toFixed(2)}%`,
    ),
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
        const scenario = 'realistic_concurrent_produce_consume';
        const run = await runRealisticWorkload(client, {
          directUrl: benchContext().directUrl,
          rounds: [
            { messages: 2000, measured: false, label: 'warm-up' },
            ...[1, 2, 3].map((n) => ({ messages: 10_000, label: `round ${n}` })),
          ],
        });
        const { outcome, figures } = run;
        recordResult(
          realisticDraft({
            scenario,
            clientFields: clientFields(client),
            run,
            parameters: {
              consumers: 4,
              consumer_threads: outcome.plan.length,
              producer_threads: 2,
              messages_per_round: 10_000,
              rounds: 3,
              prefetch: outcome.options.prefetch,
              message_bytes: outcome.options.messageBytes,
            },
            metrics: accountMetrics(figures.account),
            notes: [
              'producers publish as fast as flow control allows while the consumers (manual ack, prefetch) consume the same queue; when the producers outrun the consumers a backlog builds, and the e2e latency is mostly time spent queued',
            ],
          }),
          realisticProgress(
            scenario,
            `produce ${fmtRate(figures.produceRateMsgsPerSec)}, consume ${fmtRate(figures.consumeRateMsgsPerSec)}, e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, lost ${figures.account.lost}`,
          ),
        );
        expect(workloadProblems(outcome, figures)).toEqual([]);
        expect(figures.account.duplicates).toBe(0);
      },
      QUICK_TIMEOUT_MS,
    );

    markedTest()(
      'test_burst_traffic',
      async () => {
        const scenario = 'realistic_burst_traffic';
        const bursts = 5;
        const burstMessages = 2000;
        const gapMs = 500;
        const run = await runRealisticWorkload(client, {
          directUrl: benchContext().directUrl,
          rounds: [
            { messages: 500, measured: false, label: 'warm-up', gapAfterMs: gapMs },
            ...Array.from({ length: bursts }, (_, n) => ({ messages: burstMessages, label: `burst ${n + 1}`, gapAfterMs: gapMs })),
          ],
        });
        const { outcome, figures } = run;
        const drains = figures.rounds.filter((round) => round.measured).flatMap((round) => (round.drainMs === null ? [] : [round.drainMs]));
        const sortedDrains = sortSamples(drains);
        const medianDrainMs = sortedDrains ? quantile(sortedDrains, 0.5) : null;
        const maxDrainMs = sortedDrains ? quantile(sortedDrains, 1) : null;
        recordResult(
          realisticDraft({
            scenario,
            clientFields: clientFields(client),
            run,
            parameters: {
              bursts,
              messages_per_burst: burstMessages,
              idle_gap_ms: gapMs,
              consumers: 4,
              consumer_threads: outcome.plan.length,
              producer_threads: 2,
            },
            // The burst figures first: they are what this test is about.
            metrics: (throughput) => ({
              burst_drain_p50_ms: msMetric(medianDrainMs),
              burst_drain_max_ms: msMetric(maxDrainMs),
              ...throughput,
              ...accountMetrics(figures.account),
            }),
            samples: { burst_drain_ms: drains },
            notes: [
              'burst drain time: first producer starting the burst -> last message of the burst delivered; the next burst starts after the previous one drained plus the idle gap',
            ],
          }),
          realisticProgress(
            scenario,
            `${bursts}×${burstMessages} msgs: drain p50 ${formatMs(medianDrainMs)} max ${formatMs(maxDrainMs)}, e2e p50 ${formatMs(figures.latency.p50)} p99 ${formatMs(figures.latency.p99)}, lost ${figures.account.lost}`,
          ),
        );
        expect(workloadProblems(outcome, figures)).toEqual([]);
        expect(figures.account.duplicates).toBe(0);
      },
      QUICK_TIMEOUT_MS,
    );

    // The same path as the stress sizes, small enough for the quick run.
    markedTest()('test_massive_consumers[20-200]', () => measureMassiveConsumers(client, 20, 200, 20_000), QUICK_TIMEOUT_MS);

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
        const scenario = 'realistic_periodic_resets';
        const { directUrl, proxiedUrl, proxy } = benchContext();
        const schedule: ResetCycleOptions = { cycles: 3, firstAfterMs: 1000, intervalMs: 1500, holdMs: 250 };
        const faults = resetCyclesDuringRound(proxy, 1, schedule);
        const rate = 1000;
        const messages = 6000;
        const run = await runRealisticWorkload(client, {
          directUrl,
          consumerUrl: proxiedUrl,
          producerUrl: proxiedUrl,
          confirms: true,
          recover: true,
          rounds: [
            { messages: 300, measured: false, label: 'warm-up' },
            { messages, ratePerSecond: rate, label: 'under resets' },
          ],
          hooks: faults.hooks,
        });
        const { outcome, figures } = run;
        const cycles = faults.result();
        recordResult(
          realisticDraft({
            scenario,
            clientFields: clientFields(client),
            run,
            parameters: {
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
              consumer_reconnects: countMetric(outcome.consumerReconnects),
              producer_reconnects: countMetric(outcome.producerReconnects),
              reset_cycles: countMetric(cycles?.cycles.length ?? 0),
              ...accountMetrics(figures.account),
            },
            notes: [
              'consumers and producers connect through the fault proxy; a reset_peer toxic (timeout 0) is added and removed on a schedule while the producers publish at the target rate; clients reconnect with backoff (ensureConnection) and carry on',
              'producers use publisher confirms and publish again what was unconfirmed at a fault (at-least-once); consumers ack manually after counting',
              'the rate is paced: the throughput shows what the faults cost against the target rate, not the peak',
            ],
            details: {
              fault_cycles: cycles?.cycles.map((cycle) => ({ injected_ns: String(cycle.injectedNs), removed_ns: String(cycle.removedNs) })),
            },
          }),
          realisticProgress(
            scenario,
            `${cycles?.cycles.length ?? 0} RST cycles: consume ${fmtRate(figures.consumeRateMsgsPerSec)} (target ${rate}), reconnects ${outcome.consumerReconnects} consumer + ${outcome.producerReconnects} producer, ` +
              `lost ${figures.account.lost}, duplicates ${figures.account.duplicates} (${figures.account.unexplainedDuplicates} unexplained), e2e p99 ${formatMs(figures.latency.p99)} (from schedule ${formatMs(figures.scheduleLatency.p99)})`,
          ),
        );
        expect([...workloadProblems(outcome, figures), ...faultProblems(outcome, cycles, schedule.cycles)]).toEqual([]);
      },
      QUICK_TIMEOUT_MS,
    );

    markedTest()(
      'test_workload_under_latency',
      async () => {
        const scenario = 'realistic_latency';
        const { directUrl, proxiedUrl, proxy } = benchContext();
        const latencyMs = 200;
        const jitterMs = 100;
        const rate = 500;
        const messages = 1500;
        let fault: Fault | undefined;
        const run = await runRealisticWorkload(client, {
          directUrl,
          consumerUrl: proxiedUrl,
          producerThreads: 1,
          rounds: [
            { messages: 300, measured: false, label: 'warm-up' },
            { messages, ratePerSecond: rate, label: 'baseline' },
            { messages, ratePerSecond: rate, label: 'latency' },
          ],
          hooks: {
            beforeRound: async (index) => {
              if (index !== 2) return;
              fault = createFault({ kind: 'latency', options: { latency_ms: latencyMs, jitter_ms: jitterMs } }, { proxy });
              await fault.inject();
            },
            afterRound: async (index) => {
              if (index === 2) await fault?.remove();
            },
          },
        });
        const { outcome, figures } = run;
        const baseline = aggregateRounds(figures.rounds.filter((round) => round.label === 'baseline'));
        const slowed = aggregateRounds(figures.rounds.filter((round) => round.label === 'latency'));
        recordResult(
          realisticDraft({
            scenario,
            clientFields: clientFields(client),
            run,
            figures: slowed,
            parameters: {
              consumers: 4,
              consumer_threads: outcome.plan.length,
              latency_ms: latencyMs,
              jitter_ms: jitterMs,
              messages_per_phase: messages,
              target_rate_msgs_per_sec: rate,
            },
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
              `consumers connect through the fault proxy, producers directly; the same paced phase runs without a toxic (baseline_*) and with a latency toxic of ${latencyMs}±${jitterMs} ms on the broker-to-consumer stream (the unprefixed figures)`,
            ],
          }),
          realisticProgress(
            scenario,
            `latency ${latencyMs}±${jitterMs} ms: consume ${fmtRate(slowed.consumeRateMsgsPerSec)} (baseline ${fmtRate(baseline.consumeRateMsgsPerSec)}), e2e p50 ${formatMs(slowed.latency.p50)} p99 ${formatMs(slowed.latency.p99)} (baseline p50 ${formatMs(baseline.latency.p50)})`,
          ),
        );
        expect(workloadProblems(outcome, figures)).toEqual([]);
        // The fault acted: no message can arrive faster than latency - jitter.
        expect(slowed.latency.p50).toBeGreaterThanOrEqual(latencyMs - jitterMs);
      },
      QUICK_TIMEOUT_MS,
    );

    markedTest()(
      'test_recovery_correctness_sequence_numbers',
      async () => {
        const scenario = 'realistic_recovery_correctness';
        const { directUrl, proxiedUrl, proxy } = benchContext();
        const schedule: ResetCycleOptions = { cycles: 3, firstAfterMs: 800, intervalMs: 1200, holdMs: 200 };
        const faults = resetCyclesDuringRound(proxy, 0, schedule);
        const messages = 4000;
        const rate = 800;
        const run = await runRealisticWorkload(client, {
          directUrl,
          consumerUrl: proxiedUrl,
          producerUrl: proxiedUrl,
          confirms: true,
          persistent: true,
          durableQueue: true,
          recover: true,
          rounds: [{ messages, ratePerSecond: rate, label: 'sequence run' }],
          hooks: faults.hooks,
        });
        const { outcome, figures } = run;
        const cycles = faults.result();
        const { account } = figures;
        recordResult(
          realisticDraft({
            scenario,
            clientFields: clientFields(client),
            run,
            parameters: {
              consumers: 4,
              producer_threads: 2,
              messages,
              target_rate_msgs_per_sec: rate,
              reset_cycles: schedule.cycles,
              persistent: true,
              durable_queue: true,
              confirms: true,
            },
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
              'duplicates allowed by at-least-once: a delivery flagged redelivered (its ack died with a connection), or one more unflagged delivery per extra publish copy (republished because unconfirmed when the fault hit); anything else is an unexplained duplicate',
              ...WORKLOAD_NOTES.slice(0, 2),
            ],
            details: { lost_seqs: account.lostSeqs, unexplained_seqs: account.unexplainedSeqs },
          }),
          realisticProgress(
            scenario,
            `published ${account.published} (+${account.republished} republished), confirmed ${account.confirmed}, delivered ${account.deliveredUnique} (${account.deliveries} deliveries), ` +
              `duplicates ${account.duplicates} (${account.redeliveries} redelivered, ${account.unexplainedDuplicates} unexplained), lost ${account.lost}`,
          ),
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
