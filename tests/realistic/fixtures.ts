/** A synthetic workload outcome with known times, for the pure summary and check tests. */
import { createLatencyHistogram, encodeHistogram, recordLatencyNs } from '../../src/measure/histogram';
import { resolveWorkloadOptions } from '../../src/realistic/options';
import type { WorkloadOutcome } from '../../src/realistic/workload';

const MS = 1_000_000n;

function histogramOf(...latenciesMs: number[]) {
  const histogram = createLatencyHistogram();
  for (const ms of latenciesMs) recordLatencyNs(histogram, BigInt(ms) * MS);
  return encodeHistogram(histogram);
}

/** Two rounds (warm-up 10, measured 100) by two producers; two consumer threads. */
export function syntheticOutcome(): WorkloadOutcome {
  const options = resolveWorkloadOptions({
    directUrl: 'amqp://x',
    consumers: 2,
    producerThreads: 2,
    rounds: [
      { messages: 10, measured: false },
      { messages: 100, label: 'measured' },
    ],
  });
  const ones = (n: number) => Array.from({ length: n }, () => 1);
  return {
    options,
    queue: 'q',
    plan: [],
    consumerStartupMs: 12,
    rounds: options.rounds.map((round) => ({ round, drained: true })),
    producerReports: [
      {
        threadIndex: 0,
        faults: 0,
        reconnects: 0,
        unhandled: [],
        rounds: [
          { round: 0, startNs: 0n, endNs: 5n * MS, sent: 5, republished: 0, confirmed: 0 },
          { round: 1, startNs: 1000n * MS, endNs: 1050n * MS, sent: 50, republished: 0, confirmed: 0 },
        ],
      },
      {
        threadIndex: 1,
        faults: 0,
        reconnects: 0,
        unhandled: [],
        rounds: [
          { round: 0, startNs: 1n * MS, endNs: 4n * MS, sent: 5, republished: 0, confirmed: 0 },
          { round: 1, startNs: 1010n * MS, endNs: 1100n * MS, sent: 50, republished: 0, confirmed: 0 },
        ],
      },
    ],
    consumerReports: [
      {
        threadIndex: 0,
        consumers: 1,
        connections: 1,
        startupMs: 10,
        faults: 0,
        reconnects: 0,
        connectionsUp: 1,
        unhandled: [],
        rounds: [
          { deliveries: 5, firstNs: 2n * MS, lastNs: 6n * MS, latency: histogramOf(1), scheduleLatency: null },
          { deliveries: 50, firstNs: 1002n * MS, lastNs: 1150n * MS, latency: histogramOf(10, 10, 10), scheduleLatency: null },
        ],
      },
      {
        threadIndex: 1,
        consumers: 1,
        connections: 1,
        startupMs: 11,
        faults: 0,
        reconnects: 0,
        connectionsUp: 1,
        unhandled: [],
        rounds: [
          { deliveries: 5, firstNs: 2n * MS, lastNs: 7n * MS, latency: histogramOf(1), scheduleLatency: null },
          { deliveries: 50, firstNs: 1003n * MS, lastNs: 1200n * MS, latency: histogramOf(30), scheduleLatency: histogramOf(40) },
        ],
      },
    ],
    ledger: {
      published: ones(110),
      confirmed: Array.from({ length: 110 }, () => 0),
      delivered: ones(110),
      redelivered: Array.from({ length: 110 }, () => 0),
    },
    consumerReconnects: 0,
    producerReconnects: 0,
    connectionsDownAtEnd: 0,
    endRecoveryWaitMs: 0,
    foreignDeliveries: 0,
    queueMessagesLeft: 0,
    harnessProblems: [],
  };
}
