/** The cluster failover suite's scenarios (benchmarks/bench_cluster.bench.ts), one per fault. */
import type { SuiteDescriptor } from './types';

/** The failover faults, in the order the suite runs them; each a kind of src/faults/kinds/. */
export const FAILOVER_FAULTS = ['node_kill', 'node_partition', 'rolling_restart'] as const;
export type FailoverFault = (typeof FAILOVER_FAULTS)[number];

/** Result names as written before the fault model (kept: older results compare with newer ones). */
const RESULT_SUFFIX: Readonly<Record<FailoverFault, string>> = {
  node_kill: 'node_killed',
  node_partition: 'node_partitioned',
  rolling_restart: 'rolling_restart',
};

const LABELS: Readonly<Record<FailoverFault, string>> = {
  node_kill: 'Node killed',
  node_partition: 'Node partitioned',
  rolling_restart: 'Rolling restart',
};

/** `cluster_failover_node_killed`: the result family of a failover fault. */
export function failoverResultName(fault: FailoverFault): string {
  return `cluster_failover_${RESULT_SUFFIX[fault]}`;
}

export const CLUSTER_SUITE: SuiteDescriptor = {
  name: 'cluster',
  title: 'Cluster failover',
  folder: true,
  timesAreRecovery: true,
  scenarios: FAILOVER_FAULTS.map((fault, index) => ({
    name: failoverResultName(fault),
    label: `Failover: ${LABELS[fault].toLowerCase()}`,
    order: index + 1,
    fault,
    role: 'measurement',
  })),
};
