/** The recovery suite's scenarios (benchmarks/bench_recovery.bench.ts). */
import { PUBLISHED_TARGETS } from './targets';
import type { ClientFigure, KeyFigure, SuiteDescriptor } from './types';

const fullRecovery: KeyFigure = {
  id: 'full_recovery',
  label: 'Full recovery',
  rank: 30,
  metric: 'full_recovery_latency_ms',
  pick: 'each',
  target: PUBLISHED_TARGETS.fullRecovery,
  trend: true,
};

/** A recovery figure: at the fewest threads every client ran (the library's own time, least scheduling). */
const figure = (
  id: string,
  metric: string,
  column: string,
  order: number,
  chart?: ClientFigure['chart'],
  note = 'milliseconds from the fault (detection: first thread; propagation: every thread; recovery after removal: from the fault’s removal to every thread consuming again); medians of the replicates, the verdict looks at every replicate',
): ClientFigure => ({
  id,
  metric,
  column,
  table: 'faults',
  order,
  by: { parameter: 'threads', take: 'fewest' },
  ...(metric === 'recovery_after_removal_ms' ? { cell: { kind: 'recovery' as const } } : {}),
  ...(chart ? { chart } : {}),
  note,
});

export const RECOVERY_SUITE: SuiteDescriptor = {
  name: 'recovery',
  title: 'Recovery',
  folder: true,
  timesAreRecovery: true,
  scenarios: [
    {
      name: 'recovery_after_reset_peer',
      label: 'TCP reset',
      order: 1,
      fault: 'reset_peer',
      role: 'measurement',
      chart: 'recovery',
      keyFigures: [
        {
          id: 'rst_detection',
          label: 'TCP reset: detection (first thread)',
          rank: 10,
          metric: 'error_detection_latency_ms',
          pick: 'each',
          target: PUBLISHED_TARGETS.rstDetection,
          receivedFault: 'reset',
          otherwise: { id: 'reset_peer_detection', label: 'reset_peer toxic: detection (first thread)' },
          trend: true,
        },
        {
          id: 'rst_propagation',
          label: 'TCP reset: propagation (all threads)',
          rank: 11,
          metric: 'error_propagation_latency_ms',
          pick: 'each',
          receivedFault: 'reset',
          otherwise: { id: 'reset_peer_propagation', label: 'reset_peer toxic: propagation (all threads)' },
        },
        fullRecovery,
      ],
      clientFigures: [
        figure('rst_detection', 'error_detection_latency_ms', 'RST detection', 1, { title: 'RST detection (ms)', better: 'lower' }),
        figure('rst_propagation', 'error_propagation_latency_ms', 'RST propagation', 2, { title: 'RST propagation (ms)', better: 'lower' }),
        figure('rst_recovery_after_removal', 'recovery_after_removal_ms', 'RST recovery after removal', 3, {
          title: 'RST recovery after removal (ms)',
          better: 'lower',
        }),
      ],
    },
    {
      name: 'recovery_after_network_partition',
      label: 'Partition',
      order: 2,
      fault: 'partition',
      role: 'measurement',
      chart: 'recovery',
      keyFigures: [
        {
          id: 'partition_detection',
          label: 'Partition: detection (first thread)',
          rank: 20,
          metric: 'error_detection_latency_ms',
          pick: 'each',
          target: PUBLISHED_TARGETS.partitionDetection,
          trend: true,
        },
        {
          id: 'partition_propagation',
          label: 'Partition: propagation (all threads)',
          rank: 21,
          metric: 'error_propagation_latency_ms',
          pick: 'each',
        },
        fullRecovery,
      ],
      clientFigures: [
        // The harness's 100 ms drain deadline notices the partition, the same for every client: not the client's figure.
        figure(
          'partition_detection',
          'error_detection_latency_ms',
          'Partition detection (harness deadline)',
          4,
          { title: 'Partition detection, the harness’s 100 ms deadline (ms)', better: 'lower' },
          'the harness’s own 100 ms drain deadline notices the partition, the same for every client: it measures the harness, not the client (a client noticing silence by itself is the fault matrix’s dead peer row)',
        ),
        figure('partition_recovery_after_removal', 'recovery_after_removal_ms', 'Partition recovery after removal', 5, {
          title: 'Partition recovery after removal (ms)',
          better: 'lower',
        }),
      ],
    },
    {
      name: 'recovery_with_latency_before_failure',
      label: 'Latency, then reset',
      order: 3,
      fault: 'reset_peer',
      role: 'measurement',
      chart: 'recovery',
      keyFigures: [fullRecovery],
    },
    {
      name: 'recovery_after_broker_close',
      label: 'Broker closes the connection',
      order: 4,
      fault: 'broker_close',
      role: 'measurement',
      chart: 'recovery',
      keyFigures: [fullRecovery],
    },
    {
      name: 'recovery_harness_overhead',
      label: 'Recovery harness/bare',
      order: 10,
      role: 'witness',
      floorOf: 'recovery_after_reset_peer',
    },
  ],
};
