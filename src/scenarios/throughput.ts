/** The throughput suite's scenarios (benchmarks/bench_throughput.bench.ts). */
import type { SuiteDescriptor } from './types';

/** The harness must reach this share of a bare script of the same library (src/throughput/result.ts). */
export const HARNESS_TARGET_PERCENT = 90;

/** A publish figure of 256-byte messages: the rate at the most publishers, confirm latency at the fewest. */
const publish = (
  id: string,
  metric: string,
  mode: 'plain' | 'confirm',
  column: string,
  order: number,
  chartTitle: string,
  note: string,
) => ({
  id,
  metric,
  column,
  table: 'throughput' as const,
  order,
  where: { publish_mode: mode, message_size_bytes: 256 },
  by: { parameter: 'threads', take: mode === 'plain' ? ('most' as const) : ('fewest' as const) },
  chart: { title: chartTitle, better: mode === 'plain' ? ('higher' as const) : ('lower' as const) },
  note,
});

export const THROUGHPUT_SUITE: SuiteDescriptor = {
  name: 'throughput',
  title: 'Throughput',
  folder: true,
  scenarios: [
    {
      name: 'publish_throughput',
      label: 'Publish throughput',
      order: 1,
      role: 'measurement',
      chart: 'publish_by_threads',
      legacyModeIsPublishMode: true,
      keyFigures: [
        {
          id: 'peak_publish_throughput',
          label: 'Peak publish throughput',
          rank: 1,
          metric: 'throughput_msgs_per_sec',
          pick: 'max',
          trend: true,
        },
        { id: 'peak_publish_bandwidth', label: 'Peak publish bandwidth', rank: 2, metric: 'throughput_mb_per_sec', pick: 'max' },
      ],
      clientFigures: [
        publish(
          'publish_rate',
          'throughput_msgs_per_sec',
          'plain',
          'Publish',
          1,
          'Publish (msg/s)',
          'plain publish of 256 B (msg/s, median of the replicates)',
        ),
        publish(
          'confirm_p50',
          'publish_latency_p50_ms',
          'confirm',
          'Confirm p50',
          3,
          'Confirm latency p50 (ms)',
          "publish to the broker's confirm, 256 B",
        ),
        publish(
          'confirm_p99',
          'publish_latency_p99_ms',
          'confirm',
          'Confirm p99',
          4,
          'Confirm latency p99 (ms)',
          "publish to the broker's confirm, 256 B",
        ),
      ],
    },
    {
      name: 'sustained_consume',
      label: 'Sustained consume',
      order: 2,
      role: 'measurement',
      keyFigures: [
        // Only where the queue never ran dry: a producer-bound rate is the producers' pace, not the consumers' throughput.
        {
          id: 'peak_consume_throughput',
          label: 'Peak consume throughput',
          rank: 3,
          metric: 'consume_throughput_msgs_per_sec',
          pick: 'max',
          onlyClean: 'consume',
          trend: true,
        },
      ],
      clientFigures: [
        {
          id: 'consume_rate',
          metric: 'consume_throughput_msgs_per_sec',
          column: 'Consume',
          table: 'throughput',
          order: 2,
          where: { message_size_bytes: 256 },
          by: { parameter: 'consumers', take: 'most' },
          chart: { title: 'Consume (msg/s)', better: 'higher' },
          note: 'consume of 256 B, manual ack (msg/s)',
        },
      ],
    },
    {
      name: 'harness_overhead',
      label: 'Publish harness/bare',
      order: 10,
      role: 'witness',
      legacyModeIsPublishMode: true,
      clientFigures: [
        {
          id: 'harness_ratio',
          metric: 'ratio_percent',
          column: 'Harness/bare',
          table: 'throughput',
          order: 5,
          cell: { kind: 'ratio_at_least', percent: HARNESS_TARGET_PERCENT },
          note: `the harness's publish rate against the library's bare script (target >= ${HARNESS_TARGET_PERCENT}%)`,
        },
      ],
    },
    { name: 'consume_harness_overhead', label: 'Consume harness/bare', order: 11, role: 'witness' },
  ],
};
