/** The stability suite's scenarios (benchmarks/bench_stability.bench.ts): chaos and kill cycles. */
import type { SuiteDescriptor } from './types';

export const STABILITY_SUITE: SuiteDescriptor = {
  name: 'stability',
  title: 'Stability',
  folder: true,
  scenarios: [
    { name: 'chaos_workers', label: 'Chaos workers', order: 1, role: 'measurement' },
    { name: 'kill_recover_cycles', label: 'Kill and recover cycles', order: 2, role: 'measurement' },
  ],
};
