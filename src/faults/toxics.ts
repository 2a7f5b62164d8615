/**
 * The fault helpers benchmarks use. Each injects one fault and returns an ActiveToxic whose
 * `remove()` is idempotent; every toxic is also tracked so the per-test cleanup
 * (`removeActiveToxics`, called from fixtures/setupBenchmark.ts after each test) removes it
 * even when the test failed.
 *
 * A fault can also be armed: added at toxicity 0 before the clients connect, then fired by
 * raising its toxicity to 1. Real Toxiproxy sets SO_LINGER 0 (a true RST on close) only on
 * links that start while a reset_peer toxic is in their chain, so a reset_peer added to open
 * connections closes them with a FIN; armed first, it resets them.
 *
 * Removal never wedges real Toxiproxy (Shopify/toxiproxy#558, #412): see `removeToxicSafely`.
 */
import { describeError } from '../errors';
import { bracket, nowNs, type Bracket } from '../measure/clock';
import type { Stream, ToxicSpec } from './toxiproxyClient';
import { removeToxicSafely, strongestRemoval, type ProxyTarget, type Removal } from './toxicRemoval';

export { REMOVAL_BOUND_MS, removeToxic, removeToxicSafely, resetProxyEntry, strongestRemoval } from './toxicRemoval';
export type { ProxyTarget, Removal, RemovalMethod } from './toxicRemoval';

export interface ActiveToxic {
  readonly proxy: ProxyTarget;
  readonly type: string;
  /** Toxic names on the proxy (a partition uses one per direction). */
  readonly names: readonly string[];
  /** Monotonic time around the API call(s) that made it act (added, or fired when armed). */
  readonly injected: Bracket;
  /** `added` while clients were connected, or `armed` before they connected and fired now. */
  readonly injection: 'added' | 'armed';
  /** Removes every toxic of this fault; the second call returns the first call's result. */
  remove(): Promise<Removal>;
}

/** A toxic present at toxicity 0 (doing nothing yet) since before the clients connected. */
export interface ArmedToxic {
  readonly proxy: ProxyTarget;
  readonly type: string;
  readonly names: readonly string[];
  /** Monotonic time around the API call(s) that added it at toxicity 0. */
  readonly armed: Bracket;
  /** Raises its toxicity to 1 (`POST /proxies/{p}/toxics/{t}`): from now on it acts. */
  fire(): Promise<ActiveToxic>;
  remove(): Promise<Removal>;
}

interface TrackedToxics {
  readonly names: readonly string[];
  remove(): Promise<Removal>;
}

const tracked = new Set<TrackedToxics>();

/** One idempotent, tracked removal for a set of toxics (each removed the safe way for its type). */
function trackedRemoval(proxy: ProxyTarget, specs: readonly ToxicSpec[]): TrackedToxics {
  let removal: Promise<Removal> | undefined;
  const handle: TrackedToxics = {
    names: specs.map(nameOf),
    remove: () => {
      removal ??= (async () => {
        tracked.delete(handle);
        const startedNs = nowNs();
        const methods = await Promise.all(specs.map((spec) => removeToxicSafely(proxy, nameOf(spec), spec.type)));
        return { startedNs, completedNs: nowNs(), method: strongestRemoval(methods) };
      })();
      return removal;
    },
  };
  tracked.add(handle);
  return handle;
}

async function addSequentially(proxy: ProxyTarget, specs: readonly ToxicSpec[]): Promise<Bracket> {
  const { bracket: added } = await bracket(async () => {
    // Sequential on purpose: if the second call fails the first is still tracked and removed.
    for (const spec of specs) await proxy.client.addToxic(proxy.name, spec);
  });
  return added;
}

function nameOf(spec: ToxicSpec): string {
  return spec.name ?? `${spec.type}_${spec.stream ?? 'downstream'}`;
}

/** Adds the toxics now (in order); `type` names them together (`latency+reset_peer`). */
export async function injectToxics(proxy: ProxyTarget, type: string, specs: readonly ToxicSpec[]): Promise<ActiveToxic> {
  const handle = trackedRemoval(proxy, specs);
  const injected = await addSequentially(proxy, specs);
  return { proxy, type, names: handle.names, injected, injection: 'added', remove: handle.remove };
}

/** Adds the toxics at toxicity 0 (in order), to be fired later. */
export async function armToxics(proxy: ProxyTarget, type: string, specs: readonly ToxicSpec[]): Promise<ArmedToxic> {
  const handle = trackedRemoval(proxy, specs);
  const armed = await addSequentially(
    proxy,
    specs.map((spec) => ({ ...spec, toxicity: 0 })),
  );
  let fired: Promise<ActiveToxic> | undefined;
  return {
    proxy,
    type,
    names: handle.names,
    armed,
    remove: handle.remove,
    fire: () => {
      fired ??= bracket(async () => {
        for (const [index, name] of handle.names.entries())
          await proxy.client.updateToxic(proxy.name, name, { toxicity: specs[index]!.toxicity ?? 1 });
      }).then(({ bracket: injected }) => ({
        proxy,
        type,
        names: handle.names,
        injected,
        injection: 'armed' as const,
        remove: handle.remove,
      }));
      return fired;
    },
  };
}

function resetPeerSpec(timeoutMs: number, stream: Stream): ToxicSpec {
  return { type: 'reset_peer', name: `reset_peer_${stream}`, stream, attributes: { timeout: timeoutMs } };
}

/**
 * TCP reset added now: on the next data from the server (downstream), after `timeoutMs`, the
 * client's connection is closed. On real Toxiproxy the connections already open get a FIN,
 * not an RST (see `armResetPeer`); the embedded proxy resets them.
 */
export function toxicResetPeer(proxy: ProxyTarget, timeoutMs = 0, stream: Stream = 'downstream'): Promise<ActiveToxic> {
  return injectToxics(proxy, 'reset_peer', [resetPeerSpec(timeoutMs, stream)]);
}

/**
 * TCP reset armed before the clients connect (toxicity 0), fired later (toxicity 1): every
 * connection made in between is reset with a true RST on the next data after `fire()`, on
 * real Toxiproxy as on the embedded proxy.
 */
export function armResetPeer(proxy: ProxyTarget, timeoutMs = 0, stream: Stream = 'downstream'): Promise<ArmedToxic> {
  return armToxics(proxy, 'reset_peer', [resetPeerSpec(timeoutMs, stream)]);
}

/**
 * Network partition: all data in both directions is dropped; a connection with no data
 * arriving for `timeoutMs` is closed (0: never closed until removed). Against a busy
 * connection only the client's own deadline notices.
 */
export function toxicTimeout(proxy: ProxyTarget, timeoutMs = 100): Promise<ActiveToxic> {
  return injectToxics(
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

function latencySpec(latencyMs: number, jitterMs: number, stream: Stream): ToxicSpec {
  return { type: 'latency', name: `latency_${stream}`, stream, attributes: { latency: latencyMs, jitter: jitterMs } };
}

/** Slow network: every chunk from the server is delayed by `latencyMs` ± `jitterMs`. */
export function toxicLatency(proxy: ProxyTarget, latencyMs = 200, jitterMs = 100, stream: Stream = 'downstream'): Promise<ActiveToxic> {
  return injectToxics(proxy, 'latency', [latencySpec(latencyMs, jitterMs, stream)]);
}

/** A latency toxic armed at toxicity 0 (so it sits before toxics armed after it in the chain), fired later. */
export function armLatency(proxy: ProxyTarget, latencyMs = 200, jitterMs = 100, stream: Stream = 'downstream'): Promise<ArmedToxic> {
  return armToxics(proxy, 'latency', [latencySpec(latencyMs, jitterMs, stream)]);
}

/** Removes every toxic a helper added or armed and that is still there; returns what failed, as text. */
export async function removeActiveToxics(): Promise<string[]> {
  const failures: string[] = [];
  for (const toxic of [...tracked]) {
    await toxic.remove().catch((error: unknown) => failures.push(`${toxic.names.join(',')}: ${describeError(error)}`));
  }
  return failures;
}

/** Removes every toxic present on the proxy entry (leftovers of an earlier, killed run), safely. */
export async function removeAllToxics(proxy: ProxyTarget): Promise<number> {
  const toxics = await proxy.client.listToxics(proxy.name);
  for (const toxic of toxics) {
    // An entry re-created on the way has no toxics left to remove.
    if ((await removeToxicSafely(proxy, toxic.name, toxic.type)) === 'entry_recreated') break;
  }
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
