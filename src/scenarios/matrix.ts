/**
 * The fault matrix (benchmarks/bench_matrix.bench.ts): one scenario per fault that breaks AMQP
 * clients in production, each run for every client configuration. The rows are the faults whose
 * definition has a `matrix` field (src/faults/kinds/), in the registry's order, each on the broker
 * its definition names: a new row is a new fault file and its registry line, nothing here. The
 * result family of a fault is `fault_matrix_<kind>`; its label is the fault's own.
 */
import { FAULTS } from '../faults/kinds/registry';
import type { FaultDefinition, MatrixRowSpec } from '../faults/model';
import type { SuiteDescriptor } from './types';

/** One row of the matrix: the fault's kind, the broker its cells run on, and how they run. */
export interface MatrixRow extends MatrixRowSpec {
  readonly fault: string;
  /** `shared`: the broker on 5672 through the proxy; `own_node`: a node the harness starts for it (the fault's own `broker`). */
  readonly broker: FaultDefinition['broker'];
  /** The settings its node of the harness's own starts with (the fault's own `nodeSettings`); absent: RabbitMQ's defaults. */
  readonly nodeSettings?: FaultDefinition['nodeSettings'];
}

/** Every matrix row, in the order the report shows them. */
export const MATRIX_ROWS: readonly MatrixRow[] = [...FAULTS.values()].flatMap((definition) =>
  definition.matrix
    ? [
        {
          ...definition.matrix,
          fault: definition.kind,
          broker: definition.broker,
          ...(definition.nodeSettings ? { nodeSettings: definition.nodeSettings } : {}),
        },
      ]
    : [],
);

/** The faults of the matrix, in the order its rows show them. */
export const MATRIX_FAULTS: readonly string[] = MATRIX_ROWS.map((row) => row.fault);

/** `fault_matrix_broker_close`. */
export function matrixResultName(fault: string): string {
  return `fault_matrix_${fault}`;
}

export const MATRIX_SUITE: SuiteDescriptor = {
  name: 'matrix',
  title: 'Fault matrix',
  folder: true,
  formerCategories: ['faults'],
  scenarios: MATRIX_ROWS.map((row, index) => ({
    name: matrixResultName(row.fault),
    label: FAULTS.get(row.fault)!.label,
    order: index + 1,
    fault: row.fault,
    role: 'measurement',
  })),
};
