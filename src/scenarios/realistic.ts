/** The realistic suite's scenarios (benchmarks/bench_realistic.bench.ts). */
import type { ScenarioRow, SuiteDescriptor } from './types';

const measurement = (name: string, label: string, order: number, extra: Partial<ScenarioRow> = {}): ScenarioRow => ({
  name,
  label,
  order,
  role: 'measurement',
  ...extra,
});

export const REALISTIC_SUITE: SuiteDescriptor = {
  name: 'realistic',
  title: 'Realistic workloads',
  folder: true,
  formerCategories: ['scalability'],
  scenarios: [
    measurement('realistic_concurrent_produce_consume', 'Concurrent produce consume', 1),
    measurement('realistic_burst_traffic', 'Burst traffic', 2),
    measurement('massive_consumers', 'Massive consumers', 3, { chart: 'consumer_scaling' }),
    // Through faults: their times are recovery figures.
    measurement('realistic_periodic_resets', 'Periodic resets', 4, { fault: 'reset_peer', timesAreRecovery: true }),
    measurement('realistic_latency', 'Latency', 5, { fault: 'latency', timesAreRecovery: true }),
    measurement('realistic_recovery_correctness', 'Recovery correctness', 6, {
      fault: 'reset_peer',
      timesAreRecovery: true,
      clientFigures: [
        {
          id: 'messages_lost',
          metric: 'messages_lost',
          column: 'Lost',
          table: 'faults',
          order: 6,
          cell: { kind: 'loss' },
          note: 'confirmed, persistent messages through three RST cycles never delivered',
        },
        {
          id: 'duplicates',
          metric: 'duplicates',
          column: 'Duplicates',
          table: 'faults',
          order: 7,
          cell: { kind: 'duplicates' },
          note: 'deliveries beyond the first (at-least-once allows them; unexplained ones are a finding)',
        },
      ],
    }),
  ],
};
