/**
 * One fault-proxy entry per cluster node (`cluster-bench-a` -> 127.0.0.1:5681, ...), on free
 * ports the proxy picks, so each node can be cut off from its clients on its own, and the
 * proxy's connection list says which node a client's connection goes to.
 */
import type { ProxyTarget, ToxiproxyClient } from '../faults';
import { removeAllToxics } from '../faults/toxics';
import type { ClusterNode } from '../broker/nodes/layout';

export interface NodeProxy {
  readonly node: ClusterNode;
  readonly target: ProxyTarget;
  /** Where clients connect, e.g. `127.0.0.1:40123`. */
  readonly listen: string;
}

export function nodeProxyName(node: Pick<ClusterNode, 'name'>): string {
  return `cluster-${node.name.split('@')[0]}`;
}

/** Creates (or re-creates) an entry per node; removes them all again if one cannot be made. */
export async function createNodeProxies(client: ToxiproxyClient, nodes: readonly ClusterNode[]): Promise<NodeProxy[]> {
  const created: NodeProxy[] = [];
  try {
    for (const node of nodes) {
      const name = nodeProxyName(node);
      // A leftover of a killed run would listen on a port nobody knows: start over.
      await client.deleteProxy(name).catch(() => undefined);
      const info = await client.createProxy({ name, listen: '127.0.0.1:0', upstream: `127.0.0.1:${node.amqpPort}`, enabled: true });
      created.push({ node, target: { client, name }, listen: info.listen });
    }
    return created;
  } catch (error) {
    await removeNodeProxies(created);
    throw error;
  }
}

/** Removes every toxic, then the entries (best effort: never throws). */
export async function removeNodeProxies(proxies: readonly NodeProxy[]): Promise<void> {
  for (const proxy of proxies) {
    await removeAllToxics(proxy.target).catch(() => undefined);
    await proxy.target.client.deleteProxy(proxy.target.name).catch(() => undefined);
  }
}

/** `amqp://user:password@<listen>`: the node as a client reaches it through its entry. */
export function proxiedNodeUrl(proxy: NodeProxy, login: { readonly user: string; readonly password: string }): string {
  return `amqp://${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@${proxy.listen}`;
}

/**
 * The node behind each client port of the connections through each entry, open or recently
 * closed (a test's client ports are not reused within its minutes). Embedded proxy only: real
 * Toxiproxy has no connection list, and the map stays empty.
 */
export async function nodesByClientPort(proxies: readonly NodeProxy[]): Promise<Map<number, string>> {
  const byPort = new Map<number, string>();
  for (const proxy of proxies) {
    const connections = await proxy.target.client.connections(proxy.target.name).catch(() => null);
    for (const connection of connections ?? []) {
      const port = Number(connection.client.slice(connection.client.lastIndexOf(':') + 1));
      if (Number.isInteger(port)) byPort.set(port, proxy.node.name);
    }
  }
  return byPort;
}
