/**
 * The proxy witness (benchmarks/bench_proxy.bench.ts): what the fault proxy itself costs. The
 * proxy is the harness's (src/proxy/), not a suite's: no folder of its own.
 */
import type { SuiteDescriptor } from './types';

export const PROXY_SUITE: SuiteDescriptor = {
  name: 'proxy',
  title: 'Proxy overhead',
  folder: false,
  scenarios: [
    { name: 'proxy_overhead', label: 'Proxy overhead', order: 1, role: 'witness' },
    { name: 'proxy_added_latency', label: 'Proxy added latency', order: 2, role: 'witness' },
    { name: 'soak_bandwidth', label: 'Soak bandwidth', order: 3, role: 'witness' },
    { name: 'proxy_memory_soak', label: 'Proxy memory soak', order: 4, role: 'witness' },
  ],
};
