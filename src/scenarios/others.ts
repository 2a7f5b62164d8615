/** The stability, resilience-summary and proxy suites' scenarios. */
import type { ScenarioDescriptor } from './types';

export const STABILITY_SCENARIOS: readonly ScenarioDescriptor[] = [
  { name: 'chaos_workers', suite: 'stability', label: 'Chaos workers', order: 1, role: 'measurement' },
  { name: 'kill_recover_cycles', suite: 'stability', label: 'Kill and recover cycles', order: 2, role: 'measurement' },
];

export const RESILIENCE_SCENARIOS: readonly ScenarioDescriptor[] = [
  {
    name: 'network_resilience_summary',
    suite: 'resilience',
    label: 'Network resilience summary',
    order: 1,
    role: 'measurement',
    // One result holds each fault's figures, by the prefix of their metric names.
    metricPrefixes: { rst_: 'TCP reset', partition_: 'Partition', slow_network_: 'Slow network' },
  },
];

export const PROXY_SCENARIOS: readonly ScenarioDescriptor[] = [
  { name: 'proxy_overhead', suite: 'proxy', label: 'Proxy overhead', order: 1, role: 'witness' },
  { name: 'proxy_added_latency', suite: 'proxy', label: 'Proxy added latency', order: 2, role: 'witness' },
  { name: 'soak_bandwidth', suite: 'proxy', label: 'Soak bandwidth', order: 3, role: 'witness' },
  { name: 'proxy_memory_soak', suite: 'proxy', label: 'Proxy memory soak', order: 4, role: 'witness' },
];
