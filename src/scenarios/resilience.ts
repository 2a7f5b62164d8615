/**
 * The resilience summary (benchmarks/bench_resilience.bench.ts): one result holding each network
 * fault's figures, measured with the recovery suite's code (src/recovery/): no folder of its own.
 */
import type { SuiteDescriptor } from './types';

export const RESILIENCE_SUITE: SuiteDescriptor = {
  name: 'resilience',
  title: 'Network resilience',
  folder: false,
  timesAreRecovery: true,
  scenarios: [
    {
      name: 'network_resilience_summary',
      label: 'Network resilience summary',
      order: 1,
      role: 'measurement',
      // One result holds each fault's figures, by the prefix of their metric names.
      metricPrefixes: { rst_: 'TCP reset', partition_: 'Partition', slow_network_: 'Slow network' },
    },
  ],
};
