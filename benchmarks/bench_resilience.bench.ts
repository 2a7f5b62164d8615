/**
 * @benchmark
 *
 * One summary of network resilience: TCP reset, partition and slow network, each run with the
 * same consumer threads, timed from the injection and from the removal of the fault, with the
 * per-thread detection and recovery counts as measured (nothing assumed). A table of faults,
 * measured and recorded as one result by one call (src/recovery/resilienceSummary.ts); what the
 * client did wrong is a finding in it, what is asserted is the harness's own part.
 */
import { benchContext } from '../fixtures/context';
import { recordResult } from '../fixtures/record';
import { clientFields, forEachClient } from '../fixtures/clients';
import { expectVerdictReached } from '../fixtures/verdict';
import { measureResilienceSummary, type ResilienceRow } from '../src/recovery/resilienceSummary';
import { markedTest } from '../src/testing';

const THREADS = 10;

const ROWS: readonly ResilienceRow[] = [
  // Armed before the threads connect (the fault's default): real Toxiproxy then closes their links with a true RST.
  { key: 'rst', title: 'TCP reset (reset_peer)', options: { fault: { kind: 'reset_peer' } } },
  {
    key: 'partition',
    title: 'network partition (timeout 100 ms)',
    options: { fault: { kind: 'partition', options: { timeout_ms: 100 } }, drainTimeoutMs: 100 },
  },
  // A client with a 500 ms deadline treats a network this slow as dead, and must come back once it is fast again.
  // No target of the specification is about a slow network.
  {
    key: 'slow_network',
    title: 'slow network (latency 1000 ± 100 ms)',
    options: { fault: { kind: 'latency', options: { latency_ms: 1000, jitter_ms: 100 } }, drainTimeoutMs: 500 },
    scored: false,
  },
];

forEachClient((client) =>
  describe('TestNetworkResilienceBenchmarks', () => {
    // `variant`: its reset and partition are the recovery suite's 10-thread rows (bench:clients leaves it out).
    markedTest(['variant'])(
      'test_network_resilience_summary',
      async () => {
        const context = benchContext();
        const measured = await measureResilienceSummary(ROWS, {
          client,
          clientFields: clientFields(client),
          threads: THREADS,
          proxy: context.proxy,
          proxiedUrl: context.proxiedUrl,
          directUrl: context.directUrl,
          record: (draft) => recordResult(draft),
          progress: (line) => process.stderr.write(`  ▸ ${line}\n`),
        });
        expectVerdictReached(measured.verdict);
        if (context.strictTargets) expect(measured.missedTargets).toEqual([]);
      },
      300_000,
    );
  }),
);
