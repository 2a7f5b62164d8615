/**
 * The contract's own fault proxy: the embedded Toxiproxy-compatible server, started in this
 * process on free ports, with one entry in front of the broker. Nothing of a shared proxy (8474)
 * is touched, so a check can reset every connection through it without harming anyone else's.
 */
import { ToxiproxyClient } from '../../faults/toxiproxyClient';
import { nowNs } from '../../measure/clock';
import { startProxyServer, type ProxyServer } from '../../proxy';
import type { FaultSwitch } from './types';

const ENTRY = 'check-adapter';
const RESET_TOXIC = 'check-adapter-reset';

export class ContractFaultProxy implements FaultSwitch {
  private constructor(
    private readonly server: ProxyServer,
    private readonly api: ToxiproxyClient,
    /** The broker's URL with the proxy's listen address in place of the broker's. */
    readonly proxiedUrl: string,
    /** `127.0.0.1:<port>` where clients connect. */
    readonly listen: string,
  ) {}

  /** Starts the API and an entry on free loopback ports, forwarding to the broker of `amqpUrl`. */
  static async start(amqpUrl: string): Promise<ContractFaultProxy> {
    const broker = new URL(amqpUrl);
    const server = await startProxyServer({ host: '127.0.0.1', port: 0 });
    try {
      const api = new ToxiproxyClient(server.url);
      const entry = await api.createProxy({
        name: ENTRY,
        listen: '127.0.0.1:0',
        upstream: `${broker.hostname}:${broker.port || (broker.protocol === 'amqps:' ? 5671 : 5672)}`,
        enabled: true,
      });
      const proxied = new URL(amqpUrl);
      const port = entry.listen.slice(entry.listen.lastIndexOf(':') + 1);
      proxied.hostname = '127.0.0.1';
      proxied.port = port;
      return new ContractFaultProxy(server, api, proxied.toString().replace(/\/$/, ''), `127.0.0.1:${port}`);
    } catch (error) {
      await server.close();
      throw error;
    }
  }

  async resetOnNextData(): Promise<bigint> {
    const armedNs = nowNs();
    // reset_peer with timeout 0 on the stream towards the client: the next data the broker sends resets the connection (RST).
    await this.api.addToxic(ENTRY, {
      type: 'reset_peer',
      name: RESET_TOXIC,
      stream: 'downstream',
      toxicity: 1,
      attributes: { timeout: 0 },
    });
    return armedNs;
  }

  async heal(): Promise<void> {
    for (const toxic of await this.api.listToxics(ENTRY)) await this.api.removeToxic(ENTRY, toxic.name);
  }

  async openClientPorts(): Promise<number[]> {
    const connections = (await this.api.connections(ENTRY)) ?? [];
    return connections
      .filter((connection) => connection.closed_at_ns === null)
      .map((connection) => Number(connection.client.slice(connection.client.lastIndexOf(':') + 1)));
  }

  /** Stops the proxy: every connection through it, its API and its timers. Safe to call twice. */
  async close(): Promise<void> {
    await this.server.close();
  }
}
