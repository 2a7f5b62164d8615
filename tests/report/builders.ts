/**
 * Raw results of client configurations, as the suites write them, for the report's tests: a
 * whole client's quick run (the "Clients side by side" figures) and fault-matrix cells.
 */
import type { TestOutcome } from '../../src/results/outcome';
import type { Metric, RawResult } from '../../src/results/rawResult';
import type { MatrixDetails } from '../../src/schemaTypes';
import { publishResult, rawResult, recoveryResult } from '../results/helpers';

export const metric = (value: number | null, unit: string, direction: Metric['direction'] = 'lower'): Metric => ({
  value,
  unit,
  direction,
});

const LIBRARIES: Readonly<Record<string, string>> = {
  amqplib: 'amqplib',
  'rabbitmq-client': 'rabbitmq-client',
  cloudamqp: '@cloudamqp/amqp-client',
};

/** `result` as client `name` with `profile` wrote it (parameters, client field, describe block). */
export function asClient(name: string, profile: 'defaults' | 'normalised', result: RawResult): RawResult {
  const [file, ...titles] = result.test_id.split('::');
  return {
    ...result,
    test_id: [file, `${name} (${profile})`, ...titles].join('::'),
    parameters: { ...result.parameters, client: name, client_profile: profile },
    client: {
      name,
      profile,
      library: LIBRARIES[name]!,
      version: name === 'rabbitmq-client' ? '5.0.8' : '2.3.1',
      settings: profile === 'normalised' ? { heartbeat: 5, retryLow: 100 } : { heartbeat: 'default' },
    },
  };
}

const consume = (consumers: number, rate: number) =>
  rawResult({
    name: 'sustained_consume',
    parameters: { consumers, message_size_bytes: 256, prefetch: 100 },
    metrics: { consume_throughput_msgs_per_sec: metric(rate, 'msg/s', 'higher') },
  });

const overhead = (ratio: number) =>
  rawResult({ name: 'harness_overhead', parameters: { publish_mode: 'plain' }, metrics: { ratio_percent: metric(ratio, '%', 'higher') } });

const correctness = (lost: number, duplicates: number, unexplained: number) =>
  rawResult({
    name: 'realistic_recovery_correctness',
    category: 'resilience',
    parameters: { consumers: 4 },
    metrics: {
      messages_confirmed: metric(4000, 'count', 'none'),
      messages_lost: metric(lost, 'count'),
      duplicates: metric(duplicates, 'count'),
      unexplained_duplicates: metric(unexplained, 'count'),
    },
  });

/** A whole client's quick run: publish (10 and 100 publishers), consume, overhead, RST, partition, correctness. */
export function clientRun(name: string, profile: 'defaults' | 'normalised', scale = 1): RawResult[] {
  return [
    publishResult(10, 'plain', 20_000 * scale),
    publishResult(100, 'plain', 50_000 * scale),
    publishResult(10, 'confirm', 7_000 * scale),
    publishResult(100, 'confirm', 9_000 * scale),
    consume(1, 9_000 * scale),
    consume(10, 30_000 * scale),
    overhead(97),
    {
      ...recoveryResult('recovery_after_reset_peer', 10, 'reset_peer', 1.5 / scale, 300 / scale),
      replicates: { threads_recovered: [10, 10, 10] },
    },
    recoveryResult('recovery_after_network_partition', 10, 'timeout', 95 / scale, 500 / scale),
    correctness(0, 12, 0),
  ].map((result) => asClient(name, profile, result));
}

export const passed = (testId: string): TestOutcome => ({
  test_id: testId,
  full_name: testId,
  status: 'passed',
  duration_ms: 1,
  failure_message: null,
});

export interface Cell {
  readonly fault: string;
  readonly client: string;
  readonly profile: 'defaults' | 'normalised';
  readonly cell: string;
  readonly findings?: readonly string[];
  readonly harness?: readonly string[];
  readonly heartbeat?: MatrixDetails['heartbeat'];
}

export function matrixResult(cell: Cell): RawResult {
  return {
    schema_version: 1,
    name: `fault_matrix_${cell.fault}`,
    category: 'faults',
    test_id: `bench_fault_matrix.bench.ts::TestFaultMatrix::test_fault_${cell.fault}`,
    parameters: { threads: 2, client: cell.client, client_profile: cell.profile },
    client: {
      name: cell.client,
      profile: cell.profile,
      library: cell.client,
      version: '1.0.0',
      settings: {},
      signals: {
        channel_closed: `${cell.client}'s channel 'error'`,
        consumer_cancelled: 'none: it swallows it',
        blocked: "'blocked'",
        unblocked: "'unblocked'",
      },
    },
    metrics: {},
    details: {
      kind: 'fault_matrix',
      verdict: cell.harness
        ? { ok: false, class: 'harness', cell: cell.cell, findings: [], harness_problems: cell.harness }
        : { ok: (cell.findings ?? []).length === 0, cell: cell.cell, findings: cell.findings ?? [] },
      ...(cell.heartbeat ? { heartbeat: cell.heartbeat } : {}),
    },
    timestamp: '2026-11-25T10:00:00.000Z',
    fingerprint: 'aaaaaaaa',
  };
}
