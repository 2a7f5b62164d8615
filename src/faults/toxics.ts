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
import { ProxyCallTimeoutError, type Stream, type ToxicSpec, type ToxiproxyClient } from './toxiproxyClient';

/** A proxy entry on a Toxiproxy API (real or embedded). */
export interface ProxyTarget {
  readonly client: ToxiproxyClient;
  readonly name: string;
}

/**
 * How a toxic was taken away:
 * - `deleted`: `DELETE /proxies/{p}/toxics/{t}`;
 * - `passthrough_then_deleted`: its attributes set to pass data through untouched first (e.g.
 *   latency 0), then deleted; Toxiproxy handles that order also for links whose client is gone;
 * - `entry_recreated`: the deletion got no answer in time, so the proxy entry was deleted and
 *   created again (same listen, same upstream, no toxics), which also closed its connections.
 */
export type RemovalMethod = 'deleted' | 'passthrough_then_deleted' | 'entry_recreated';

export interface Removal extends Bracket {
  readonly method: RemovalMethod;
}

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

/** Bound of each removal call; past it the entry is reset another way. */
export const REMOVAL_BOUND_MS = 3000;

/**
 * Attributes under which a toxic passes data through untouched. Set before deleting such a
 * toxic: Toxiproxy's removal drains what the toxic holds into a link whose client may be gone,
 * and blocks (#558); an update does not drain, and the deletion that follows finds nothing held.
 * Bandwidth gets a huge rate, not 0: on Toxiproxy `rate: 0` stalls the link forever.
 */
const PASS_THROUGH_ATTRIBUTES: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  latency: { latency: 0, jitter: 0 },
  bandwidth: { rate: 1_000_000_000 },
  slow_close: { delay: 0 },
};

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

/** Of several removals, the method that says the most about what happened to the entry. */
export function strongestRemoval(methods: readonly RemovalMethod[]): RemovalMethod {
  for (const method of ['entry_recreated', 'passthrough_then_deleted'] as const) if (methods.includes(method)) return method;
  return 'deleted';
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

const isNotFound = (error: unknown): boolean => (error as { status?: number }).status === 404;

/** Removes one toxic by name with a plain bounded DELETE; a toxic that is already gone is not an error. */
export async function removeToxic(proxy: ProxyTarget, toxicName: string): Promise<void> {
  try {
    await proxy.client.removeToxic(proxy.name, toxicName, REMOVAL_BOUND_MS);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Removes one toxic without ever wedging real Toxiproxy: a toxic that holds data is first set
 * to pass data through, then deleted; every call is bounded by REMOVAL_BOUND_MS; when the
 * deletion gets no answer, the entry is deleted and created again (`resetProxyEntry`).
 * @throws ProxyCallTimeoutError naming a wedged server when even that gets no answer
 */
export async function removeToxicSafely(proxy: ProxyTarget, toxicName: string, type?: string): Promise<RemovalMethod> {
  const passThrough = type === undefined ? undefined : PASS_THROUGH_ATTRIBUTES[type];
  try {
    if (passThrough) {
      try {
        await proxy.client.updateToxic(proxy.name, toxicName, { attributes: passThrough }, REMOVAL_BOUND_MS);
      } catch (error) {
        if (isNotFound(error)) return 'deleted';
        throw error;
      }
    }
    await removeToxic(proxy, toxicName);
    return passThrough ? 'passthrough_then_deleted' : 'deleted';
  } catch (error) {
    if (!(error instanceof ProxyCallTimeoutError) || error.diagnosis === 'unreachable') throw error;
    await resetProxyEntry(proxy, `removing toxic "${toxicName}" got no answer in ${REMOVAL_BOUND_MS} ms`);
    return 'entry_recreated';
  }
}

const resets = new WeakMap<ToxiproxyClient, Map<string, Promise<void>>>();

/**
 * Deletes the entry and creates it again with the same listen and upstream (and no toxics):
 * the other way to clear a Toxiproxy entry, which needs no toxic removal. One reset at a time
 * per entry; says so on stderr in one line.
 */
export function resetProxyEntry(proxy: ProxyTarget, why: string): Promise<void> {
  const pending = resets.get(proxy.client) ?? new Map<string, Promise<void>>();
  resets.set(proxy.client, pending);
  const existing = pending.get(proxy.name);
  if (existing) return existing;
  const reset = (async () => {
    const entry = proxy.client.knownEntry(proxy.name) ?? (await proxy.client.getProxy(proxy.name, REMOVAL_BOUND_MS));
    await proxy.client.deleteProxy(proxy.name, REMOVAL_BOUND_MS).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await proxy.client.createProxy({ name: proxy.name, listen: entry.listen, upstream: entry.upstream, enabled: true }, REMOVAL_BOUND_MS);
    process.stderr.write(
      `fault proxy: ${why}; re-created entry "${proxy.name}" (${entry.listen} -> ${entry.upstream}) instead (Toxiproxy removal deadlock, Shopify/toxiproxy#558)\n`,
    );
  })().finally(() => pending.delete(proxy.name));
  pending.set(proxy.name, reset);
  return reset;
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
