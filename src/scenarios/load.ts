/** `bench load` (src/load/): one workload per run, named by the user; no benchmark file and no fixed scenarios. */
import type { SuiteDescriptor } from './types';

export const LOAD_SUITE: SuiteDescriptor = { name: 'load', title: 'Workloads', folder: true, scenarios: [] };
