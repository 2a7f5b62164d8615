import type { ProxyTarget, ToxicSpec } from '../../src/faults';
import { removeActiveToxics } from '../../src/faults';
import { startResetCycles } from '../../src/realistic/faultCycles';

/** A proxy API stand-in that records calls (the real proxy is exercised in workload.test.ts). */
function recordingProxy(failOn?: number): { proxy: ProxyTarget; calls: string[] } {
  const calls: string[] = [];
  const client = {
    addToxic: async (_proxy: string, spec: ToxicSpec) => {
      calls.push(`add ${spec.type}`);
      if (calls.filter((call) => call.startsWith('add')).length === failOn) throw new Error('API down');
      return {};
    },
    removeToxic: async (_proxy: string, name: string) => {
      calls.push(`remove ${name}`);
    },
  };
  return { proxy: { client: client as unknown as ProxyTarget['client'], name: 'p' }, calls };
}

afterEach(async () => {
  await removeActiveToxics();
});

describe('startResetCycles', () => {
  it('injects and removes a reset_peer toxic on schedule', async () => {
    const { proxy, calls } = recordingProxy();
    const cycles = startResetCycles(proxy, { cycles: 3, firstAfterMs: 5, intervalMs: 60, holdMs: 10 });
    const result = await cycles.done;
    expect(result.error).toBeUndefined();
    expect(result.cycles).toHaveLength(3);
    expect(calls).toEqual([
      'add reset_peer',
      'remove reset_peer_downstream',
      'add reset_peer',
      'remove reset_peer_downstream',
      'add reset_peer',
      'remove reset_peer_downstream',
    ]);
    for (const cycle of result.cycles) expect(cycle.removedNs).toBeGreaterThan(cycle.injectedNs);
    const [first, second] = result.cycles;
    // Spaced by the schedule, not back to back (the bound is loose: an API call's own time moves each injection).
    expect(Number(second!.injectedNs - first!.injectedNs) / 1e6).toBeGreaterThanOrEqual(30);
  });

  it('stops early when asked, removing a held toxic', async () => {
    const { proxy, calls } = recordingProxy();
    const cycles = startResetCycles(proxy, { cycles: 10, firstAfterMs: 0, intervalMs: 1000, holdMs: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    cycles.stop();
    const result = await cycles.done;
    expect(result.cycles).toHaveLength(1);
    expect(calls).toEqual(['add reset_peer', 'remove reset_peer_downstream']);
  });

  it('reports a failed API call instead of rejecting', async () => {
    const { proxy } = recordingProxy(2);
    const result = await startResetCycles(proxy, { cycles: 3, firstAfterMs: 0, intervalMs: 5, holdMs: 1 }).done;
    expect(result.cycles).toHaveLength(1);
    expect(result.error).toBe('API down');
  });
});
