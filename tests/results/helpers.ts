/**
 * Builders for raw results and environments shaped like the ones the suites write (issues 4
 * and 5: family names, metric names, units, directions, samples, targets), for tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvironmentRecord } from '../../src/environment';
import type { Category, Metric, RawResult } from '../../src/results/rawResult';

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `bench-${prefix}-`));
}

export function environment(overrides: Partial<EnvironmentRecord> = {}): EnvironmentRecord {
  return {
    schema_version: 1,
    git_commit: '0123456789abcdef0123456789abcdef01234567',
    git_dirty: false,
    node_version: 'v20.20.2',
    platform: 'linux-x64',
    arch: 'x64',
    os_release: '6.1.0',
    cpu_model: 'Test CPU',
    cpu_count: 2,
    total_memory_bytes: 24 * 1024 ** 3,
    amqplib_version: '2.3.1',
    rabbitmq_version: '3.10.7',
    broker_url: 'amqp://guest@127.0.0.1:5672',
    captured_at: '2025-01-31T12:00:00.000Z',
    fingerprint: 'abcd1234',
    ...overrides,
  };
}

const metric = (value: number | null, unit: string, direction: Metric['direction']): Metric => ({ value, unit, direction });

export function rawResult(overrides: Partial<RawResult> & { name: string; category?: Category }): RawResult {
  return {
    schema_version: 1,
    category: 'throughput',
    test_id: `benchmarks/bench_x.bench.ts::TestX::${overrides.name}`,
    parameters: {},
    metrics: {},
    timestamp: '2025-01-31T12:00:00.000Z',
    fingerprint: 'abcd1234',
    ...overrides,
  };
}

/** Deterministic spread around `center` (±2%), `n` values. */
export function spread(center: number, n: number, seed = 1): number[] {
  return Array.from({ length: n }, (_, index) => center * (1 + 0.02 * Math.sin(seed * 7.3 + index * 2.1)));
}

export function publishResult(threads: number, mode: 'plain' | 'confirm', rate: number, messagesPerThread = 100): RawResult {
  const rounds = spread(rate, 5, threads);
  return rawResult({
    name: 'publish_throughput',
    category: 'throughput',
    test_id: `benchmarks/bench_throughput.bench.ts::TestThroughput::test_publish_throughput[${threads}-${messagesPerThread}-${mode}]`,
    parameters: { threads, messages_per_thread: messagesPerThread, message_size_bytes: 256, publish_mode: mode },
    metrics: {
      throughput_msgs_per_sec: metric(rate, 'msg/s', 'higher'),
      throughput_mb_per_sec: metric((rate * 256) / 1e6, 'MB/s', 'higher'),
      publish_latency_p50_ms: metric(0.4 + threads / 200, 'ms', 'lower'),
      publish_latency_p95_ms: metric(1.1 + threads / 90, 'ms', 'lower'),
      publish_latency_p99_ms: metric(2.3 + threads / 50, 'ms', 'lower'),
      publish_latency_max_ms: metric(9 + threads / 10, 'ms', 'lower'),
      errors: metric(0, 'count', 'lower'),
    },
    samples: { throughput_msgs_per_sec: rounds },
    // As the suite writes it: each replicate's value (fresh sessions), the metric's value their median.
    replicates: { throughput_msgs_per_sec: rounds, throughput_mb_per_sec: rounds.map((each) => (each * 256) / 1e6) },
  });
}

export function consumersResult(consumers: number, messages: number, consumeRate: number): RawResult {
  return rawResult({
    name: 'massive_consumers',
    category: 'scalability',
    test_id: `benchmarks/bench_realistic.bench.ts::TestRealisticWorkloads::test_massive_consumers_stress[${consumers}-${messages}]`,
    parameters: { consumers, messages },
    metrics: {
      produce_throughput_msgs_per_sec: metric(consumeRate * 1.1, 'msg/s', 'higher'),
      consume_throughput_msgs_per_sec: metric(consumeRate, 'msg/s', 'higher'),
      e2e_latency_p50_ms: metric(3 + consumers / 100, 'ms', 'lower'),
      e2e_latency_p99_ms: metric(12 + consumers / 20, 'ms', 'lower'),
      consumer_startup_ms: metric(consumers * 2.5, 'ms', 'lower'),
      message_loss_percent: metric(0, '%', 'lower'),
    },
  });
}

export function recoveryResult(name: string, threads: number, mode: string, detectionMs: number, fullRecoveryMs: number): RawResult {
  const perThread = spread(detectionMs * 1.5, threads, threads);
  return rawResult({
    name,
    category: 'recovery',
    test_id: `benchmarks/bench_recovery_latency.bench.ts::TestRecoveryLatency::test_${name}[${threads}]`,
    parameters: { threads, mode },
    metrics: {
      error_detection_latency_ms: metric(detectionMs, 'ms', 'lower'),
      error_propagation_latency_ms: metric(Math.max(...perThread), 'ms', 'lower'),
      full_recovery_latency_ms: metric(fullRecoveryMs, 'ms', 'lower'),
      recovery_after_removal_ms: metric(fullRecoveryMs * 0.6, 'ms', 'lower'),
      threads_detected: metric(threads, 'count', 'none'),
      threads_recovered: metric(threads, 'count', 'none'),
      threads_total: metric(threads, 'count', 'none'),
      detection_latency_p50_ms: metric(detectionMs * 1.4, 'ms', 'lower'),
      detection_latency_p95_ms: metric(detectionMs * 1.9, 'ms', 'lower'),
    },
    samples: { detection_latency_p50_ms: perThread },
    notes: ["detection timed from the proxy's RST moment"],
  });
}

/** A full set like a complete run writes; `scale` > 1 makes everything better. */
export function realisticResults(scale = 1): RawResult[] {
  return [
    publishResult(10, 'plain', 52_000 * scale),
    publishResult(100, 'plain', 61_000 * scale),
    publishResult(10, 'confirm', 18_500 * scale),
    publishResult(100, 'confirm', 24_000 * scale),
    consumersResult(100, 1000, 41_000 * scale),
    consumersResult(500, 2000, 38_000 * scale),
    recoveryResult('recovery_after_reset_peer', 10, 'manual', 2.1 / scale, 420 / scale),
    recoveryResult('recovery_after_reset_peer', 50, 'manual', 6.5 / scale, 910 / scale),
    recoveryResult('recovery_after_network_partition', 10, 'manual', 118 / scale, 1300 / scale),
    recoveryResult('recovery_with_latency_before_failure', 10, 'manual', 240 / scale, 1800 / scale),
    rawResult({
      name: 'race_conditions_kill_cycles',
      category: 'stability',
      parameters: { cycles: 200 },
      metrics: {
        deadlocks: metric(0, 'count', 'lower'),
        leaked_connections: metric(0, 'count', 'lower'),
        cycle_time_p50_ms: metric(35 / scale, 'ms', 'lower'),
      },
    }),
  ];
}
