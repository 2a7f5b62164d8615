/**
 * The fault matrix (benchmarks/bench_matrix.bench.ts): one scenario per fault that breaks
 * AMQP clients in production, each run for every client configuration. The result family of a
 * fault is `fault_matrix_<kind>`; its label is the fault's own (src/faults/kinds/).
 */
import { faultDefinition } from '../faults/kinds/registry';
import type { SuiteDescriptor } from './types';

/** The faults of the matrix, in the order its rows show them. */
export const MATRIX_FAULTS = ['broker_close', 'channel_error', 'consumer_cancel', 'alarm', 'dead_peer', 'node_pause'] as const;
export type MatrixFault = (typeof MATRIX_FAULTS)[number];

/** `fault_matrix_broker_close`. */
export function matrixResultName(fault: string): string {
  return `fault_matrix_${fault}`;
}

export const MATRIX_SUITE: SuiteDescriptor = {
  name: 'matrix',
  title: 'Fault matrix',
  folder: true,
  formerCategories: ['faults'],
  scenarios: MATRIX_FAULTS.map((fault, index) => ({
    name: matrixResultName(fault),
    label: faultDefinition(fault).label,
    order: index + 1,
    fault,
    role: 'measurement',
  })),
};
