/**
 * The fault helpers benchmarks use. Each injects one fault and returns an ActiveToxic whose
 * `remove()` is idempotent; every active toxic is also tracked so the per-test cleanup
 * (`removeActiveToxics`, called from fixtures/setupBenchmark.ts after each test) removes it
 * even when the test failed.
 */
import { describeError } from '../errors';
import { bracket, type Bracket } from '../measure/clock';
import type { Stream, ToxicSpec, ToxiproxyClient } from './toxiproxyClient';

/** A proxy entry on a Toxiproxy API (real or embedded). */
export interface ProxyTarget {
  readonly client: ToxiproxyClient;
  readonly name: string;
}

export interface ActiveToxic {
  readonly proxy: ProxyTarget;
  readonly type: string;
  /** Toxic names on the proxy (a partition uses one per direction). */
  readonly names: readonly string[];
  /** Monotonic time around the API call(s) that added it. */
  readonly injected: Bracket;
  /** Removes every toxic of this fault; the second call returns the first call's bracket. */
  remove(): Promise<Bracket>;
}

const active = new Set<ActiveToxic>();

async function inject(proxy: ProxyTarget, type: string, specs: readonly ToxicSpec[]): Promise<ActiveToxic> {
  const names = specs.map((spec) => spec.name ?? `${spec.type}_${spec.stream ?? 'downstream'}`);
  const { bracket: injected } = await bracket(async () => {
    // Sequential on purpose: if the second call fails the first is still tracked and removed.
    for (const spec of specs) await proxy.client.addToxic(proxy.name, spec);
  });
  let removal: Promise<Bracket> | undefined;
  const toxic: ActiveToxic = {
    proxy,
    type,
    names,
    injected,
    remove: () => {
      removal ??= bracket(async () => {
        active.delete(toxic);
        await Promise.all(names.map((name) => removeToxic(proxy, name)));
      }).then((result) => result.bracket);
      return removal;
    },
  };
  active.add(toxic);
  return toxic;
}

/**
 * TCP RST: on the next data from the server (downstream), after `timeoutMs`, the client's
 * connection is reset.
 */
export function toxicResetPeer(proxy: ProxyTarget, timeoutMs = 0, stream: Stream = 'downstream'): Promise<ActiveToxic> {
  return inject(proxy, 'reset_peer', [{ type: 'reset_peer', name: `reset_peer_${stream}`, stream, attributes: { timeout: timeoutMs } }]);
}

/**
 * Network partition: all data in both directions is dropped; a connection with no data
 * arriving for `timeoutMs` is closed (0: never closed until removed). Against a busy
 * connection only the client's own deadline notices.
 */
export function toxicTimeout(proxy: ProxyTarget, timeoutMs = 100): Promise<ActiveToxic> {
  return inject(
    proxy,
    'timeout',
    (['downstream', 'upstream'] as const).map((stream) => ({
      type: 'timeout',
      name: `timeout_${stream}`,
      stream,
      attributes: { timeout: timeoutMs },
    })),
  );
}

/** Slow network: every chunk from the server is delayed by `latencyMs` ± `jitterMs`. */
export function toxicLatency(proxy: ProxyTarget, latencyMs = 200, jitterMs = 100, stream: Stream = 'downstream'): Promise<ActiveToxic> {
  return inject(proxy, 'latency', [
    { type: 'latency', name: `latency_${stream}`, stream, attributes: { latency: latencyMs, jitter: jitterMs } },
  ]);
}

/** Removes one toxic by name; a toxic that is already gone is not an error. */
export async function removeToxic(proxy: ProxyTarget, toxicName: string): Promise<void> {
  try {
    await proxy.client.removeToxic(proxy.name, toxicName);
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
  }
}

/** Removes every toxic a helper injected and that is still active; returns what failed, as text. */
export async function removeActiveToxics(): Promise<string[]> {
  const failures: string[] = [];
  for (const toxic of [...active]) {
    await toxic.remove().catch((error: unknown) => failures.push(`${toxic.names.join(',')}: ${describeError(error)}`));
  }
  return failures;
}

/** Removes every toxic present on the proxy entry (leftovers of an earlier, killed run). */
export async function removeAllToxics(proxy: ProxyTarget): Promise<number> {
  const toxics = await proxy.client.listToxics(proxy.name);
  for (const toxic of toxics) await removeToxic(proxy, toxic.name);
  return toxics.length;
}

/** Runs `body` with the fault active and removes it afterwards, whatever happens. */
export async function withToxic<T>(injecting: Promise<ActiveToxic>, body: (toxic: ActiveToxic) => Promise<T>): Promise<T> {
  const toxic = await injecting;
  try {
    return await body(toxic);
  } finally {
    await toxic.remove();
  }
}
