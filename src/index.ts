/**
 * The public API of amqp-bench (`require('amqp-bench')`), for a project that installs it: the
 * adapter API (also alone in `amqp-bench/adapter`), the fault model's kinds, and what a benchmark
 * of your own needs under the Jest preset (`preset: 'amqp-bench'`): its context (broker and proxy
 * URLs, the proxy client), recording a result, markers, and running once per client under test.
 */
export * from './adapter';
export { FAULT_KIND_NAMES, createFault, parseFaultArgument, type FaultSpec } from './faults/kinds/registry';
export type { Fault, FaultContext, FaultDefinition } from './faults/model';
export { MARKERS, type Marker } from './markers';
export { markedTest, withMarkers, type MarkedRow } from './testing';
export { benchContext } from '../fixtures/context';
export { recordResult } from '../fixtures/record';
export { clientFields, forEachClient } from '../fixtures/clients';
export type { ResultDraft, RawResult } from './results/rawResult';
