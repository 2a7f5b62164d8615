/**
 * Taking a toxic away without ever wedging real Toxiproxy (Shopify/toxiproxy#558, #412): a toxic
 * that holds data passes it through first, every call is bounded, and a deletion that gets no
 * answer is replaced by re-creating the proxy entry.
 */
import type { Bracket } from '../measure/clock';
import { ProxyCallTimeoutError, type ToxiproxyClient } from './toxiproxyClient';

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

/** Of several removals, the method that says the most about what happened to the entry. */
export function strongestRemoval(methods: readonly RemovalMethod[]): RemovalMethod {
  for (const method of ['entry_recreated', 'passthrough_then_deleted'] as const) if (methods.includes(method)) return method;
  return 'deleted';
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
