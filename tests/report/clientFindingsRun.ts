/**
 * A bench:clients run's findings, as the realistic suite records them, for the clients table's
 * verdict: foo-foo-mq (defaults) and cloudamqp (defaults) of the run the clients guide's table
 * comes from (run_20261128_104401, docs/guide/clients.md): two realistic scenarios failing on
 * several threads each, a scenario one cannot run, and one scenario run with other parameters by
 * each of them.
 */
import type { RawResult } from '../../src/results/rawResult';
import type { Finding } from '../../src/schemaTypes';
import { rawResult } from '../results/helpers';
import { asClient } from './builders';

export const STOPPED = 'stopped on an error of the client';
export const UNHANDLED = "error(s) nobody handled inside the client (an application on Node's defaults would have crashed)";

const resets = (consumerThreads: number) => ({
  consumers: 4,
  consumer_threads: consumerThreads,
  producer_threads: 2,
  messages: 6000,
  target_rate_msgs_per_sec: 1000,
  reset_cycles: 3,
  reset_interval_ms: 1500,
  reset_hold_ms: 250,
});
const CORRECTNESS = {
  consumers: 4,
  producer_threads: 2,
  messages: 4000,
  target_rate_msgs_per_sec: 800,
  reset_cycles: 3,
  persistent: true,
  durable_queue: true,
  confirms: true,
};

const finding = (kind: Finding['kind'], where: string, text: string): Finding => ({ kind, where, text, evidence: [] });
/** Every consumer and producer thread of the workload stopped on an error of the client. */
const allStopped = (consumerThreads: number): Finding[] => [
  ...Array.from({ length: consumerThreads }, (_, index) => finding('thread_failed', `consumer thread ${index}`, STOPPED)),
  ...[0, 1].map((index) => finding('thread_failed', `producer thread ${index}`, STOPPED)),
];

const realistic = (name: string, parameters: RawResult['parameters'], findings: Finding[], extra: Partial<RawResult> = {}) =>
  rawResult({
    name,
    category: 'resilience',
    test_id: `benchmarks/bench_realistic.bench.ts::TestRealistic::test_${name}`,
    parameters,
    findings,
    harness_problems: [],
    ...extra,
  });

/** foo-foo-mq (defaults): both realistic scenarios failing on all six threads, and one it cannot run. */
export const fooFooMq: RawResult[] = [
  realistic('realistic_periodic_resets', resets(4), [
    ...allStopped(4),
    finding('message_lost', 'the workload', '100 confirmed message(s) lost: never delivered'),
    finding('stalled', 'under resets', 'did not drain'),
    finding('connection_leaked', 'the workload', '6 connection(s) still down at the end'),
    finding('stalled', 'the queue', '106 message(s) left in the queue at the end'),
  ]),
  realistic('realistic_recovery_correctness', CORRECTNESS, [
    ...allStopped(4),
    finding('stalled', 'sequence run', 'did not drain'),
    finding('connection_leaked', 'the workload', '6 connection(s) still down at the end'),
    finding('stalled', 'the queue', '181 message(s) left in the queue at the end'),
  ]),
  realistic('massive_consumers', { consumers: 20, worker_threads: 4, producer_threads: 2, prefetch: 100, message_bytes: 256 }, [], {
    metrics: {},
    cannot_run: "foo-foo-mq keeps one subscription per queue per connection (its adapter's consumersPerQueue: 'one')",
  }),
].map((result) => asClient('foo-foo-mq', 'defaults', result));

/** cloudamqp (defaults): errors nobody handled, other counts on other threads; its periodic resets with 2 consumer threads. */
export const cloudamqp: RawResult[] = [
  realistic('realistic_periodic_resets', resets(2), [finding('unhandled_error', 'producer thread 1', `4 ${UNHANDLED}`)]),
  realistic('realistic_recovery_correctness', CORRECTNESS, [
    finding('unhandled_error', 'producer thread 0', `10 ${UNHANDLED}`),
    finding('unhandled_error', 'producer thread 1', `18 ${UNHANDLED}`),
  ]),
].map((result) => asClient('cloudamqp', 'defaults', result));
