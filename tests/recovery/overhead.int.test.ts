/**
 * The recovery harness-overhead check on a tiny real run: the real broker, the embedded fault
 * proxy in-process on free ports, the harness's consumer threads and scripts/bare-recovery.js
 * through the same scenario. Both sides must see the fault as an RST on every connection, be
 * timed from the RST on their own connection, and recover; the fault spread comes from the
 * proxy's timeline for both.
 */
import { DEFAULT_CLIENT } from '../../src/client/api';
import { getConfig } from '../../src/config';
import { removeActiveToxics } from '../../src/faults';
import { measureRecoveryOverhead } from '../../src/recovery/overhead';
import { recoveryOverheadResult } from '../../src/recovery/overheadResult';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

const THREADS = 3;

describe('the recovery harness-overhead check against the real broker and proxy', () => {
  let entry: EmbeddedProxyEntry;

  beforeAll(async () => {
    entry = await startEmbeddedProxyEntry('recovery-overhead');
  });
  afterEach(async () => {
    await removeActiveToxics();
  });
  afterAll(async () => {
    await entry?.close();
  });

  it('runs the harness and the bare floor through the same fault, each thread timed from the RST on its own connection', async () => {
    const outcome = await measureRecoveryOverhead({
      threads: THREADS,
      client: DEFAULT_CLIENT,
      proxy: entry.proxy,
      proxiedUrl: entry.proxiedUrl,
      directUrl: getConfig().amqpUrl,
      pairs: 1,
    });
    expect(outcome.pairs.map((pair) => pair.first)).toEqual(['harness']);
    for (const [name, side] of Object.entries({ harness: outcome.pairs[0]!.harness, bare: outcome.pairs[0]!.bare })) {
      const { metrics, fault, details } = side.computed;
      expect({ name, failures: side.failures }).toEqual({ name, failures: [] });
      // Every thread heard the RST itself (no deadline, no other error). amqplib reports an RST now and
      // then as "Unexpected close" (1 thread of 3 in 1 of 5 CI runs on 2026-11-23; the realistic suite
      // saw it too), so a reset may arrive as `closed`; the proxy's timeline is exact either way.
      const received = fault.received as Record<string, number>;
      expect({
        name,
        kinds: Object.keys(received).filter((kind) => kind !== 'reset' && kind !== 'closed'),
        exact: fault.reference.exact,
      }).toEqual({
        name,
        kinds: [],
        exact: true,
      });
      expect({ name, heard: (received.reset ?? 0) + (received.closed ?? 0) }).toEqual({ name, heard: THREADS });
      expect({ name, detected: metrics.threads_detected?.value, recovered: metrics.threads_recovered?.value }).toEqual({
        name,
        detected: THREADS,
        recovered: THREADS,
      });
      // Every thread's port is in the proxy's timeline: each is timed from its own RST.
      expect({ name, own: metrics.threads_timed_from_own_fault?.value }).toEqual({ name, own: THREADS });
      const timeline = details.fault_timeline as { client_port: number; acted_ns: string }[];
      expect(timeline).toHaveLength(THREADS);
      const spread = Number(BigInt(timeline.at(-1)!.acted_ns) - BigInt(timeline[0]!.acted_ns)) / 1e6;
      expect(metrics.fault_spread_ms?.value).toBeCloseTo(spread, 3);
      // Each connection's own delays: from the RST on its own connection, and from hearing of the removal.
      const ownRst = new Map(timeline.map((one) => [one.client_port, BigInt(one.acted_ns)]));
      expect(side.connections.detectionMs).toHaveLength(THREADS);
      details.threads.forEach((thread, index) => {
        const own = side.connections.detectionMs[index];
        expect({ name, thread: thread.thread, own: typeof own === 'number' && own > 0 && own < 60_000 }).toEqual({
          name,
          thread: thread.thread,
          own: true,
        });
        // The same moment the scenario's per-thread figure is timed from (its own RST).
        expect(own).toBeCloseTo(thread.detection_ms!, 2);
      });
      expect(ownRst.size).toBe(THREADS);
      for (const delays of [side.connections.recoveryMs, side.connections.removalSignalMs])
        expect({ name, delays: delays.map((ms) => typeof ms === 'number' && ms > 0 && ms < 60_000) }).toEqual({
          name,
          delays: [true, true, true],
        });
    }
    const result = recoveryOverheadResult(outcome);
    expect(result.metrics.connection_detection_p50_ratio_percent?.value).toBeGreaterThan(0);
    expect(result.metrics.connection_recovery_p50_ratio_percent?.value).toBeGreaterThan(0);
    expect(result.targets?.map((target) => target.metric)).toEqual([
      'connection_detection_p50_ratio_percent',
      'connection_recovery_p50_ratio_percent',
    ]);
  }, 120_000);
});
