/**
 * One proxy entry (Toxiproxy's `proxy.go`): a listener that accepts clients and dials the
 * upstream for each. States: disabled (no listener) and enabled (listening). Disabling
 * closes the listener and every open connection; a change of listen or upstream restarts it.
 */
import net, { type AddressInfo, type Server } from 'node:net';
import { formatBoundAddress, listenErrorMessage, parseTcpAddress } from './address';
import { apiErrors } from './apiErrors';
import { type ConnectionHost, ProxyConnection } from './connection';
import type { LinkOptions } from './link';
import { FaultTimeline, type TimelineLimits } from './timeline';
import type { Toxic, ToxicJson } from './toxic';
import { type AttributeDecoder, ToxicCollection } from './toxicCollection';
import type { StreamDirection } from './toxics/types';

/** The proxy object of the API, field for field as Toxiproxy serializes it. */
export interface ProxyJson {
  readonly name: string;
  readonly listen: string;
  readonly upstream: string;
  readonly enabled: boolean;
  readonly toxics: readonly ToxicJson[];
}

/** Shared by every proxy of one server. */
export interface ProxyRuntime {
  readonly linkOptions: LinkOptions;
  readonly timelineLimits: TimelineLimits;
  readonly decodeAttributes: AttributeDecoder;
  /** Connection ids are unique across the proxies of a server. */
  nextConnectionId(): number;
}

export interface ProxySettings {
  readonly listen: string;
  readonly upstream: string;
  readonly enabled: boolean;
}

export class Proxy implements ConnectionHost {
  readonly toxics: ToxicCollection;
  readonly timeline: FaultTimeline;
  private server: Server | undefined;
  private readonly connections = new Set<ProxyConnection>();

  constructor(
    readonly name: string,
    /** As given until the proxy listens; then the address actually bound. */
    public listen: string,
    public upstream: string,
    private readonly runtime: ProxyRuntime,
  ) {
    this.toxics = new ToxicCollection(() => this.connections, runtime.decodeAttributes);
    this.timeline = new FaultTimeline(name, runtime.timelineLimits);
  }

  get enabled(): boolean {
    return this.server !== undefined;
  }

  get linkOptions(): LinkOptions {
    return this.runtime.linkOptions;
  }

  get openConnectionCount(): number {
    return this.connections.size;
  }

  toxicsFor(direction: StreamDirection): readonly Toxic[] {
    return this.toxics.chain(direction);
  }

  connectionClosed(connection: ProxyConnection): void {
    this.connections.delete(connection);
  }

  /** Starts listening. @returns false when it was already listening. @throws ProxyError 500 with Go's listen error text */
  async start(): Promise<boolean> {
    if (this.server) return false;
    const endpoint = parseTcpAddress(this.listen);
    if ('error' in endpoint) throw apiErrors.listenFailed(`listen tcp ${this.listen}: ${endpoint.error}`);
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
      if (this.server !== server) return void socket.destroy();
      const connection = new ProxyConnection(this.runtime.nextConnectionId(), socket, this.upstream, this);
      this.connections.add(connection);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: endpoint.host, port: endpoint.port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      throw apiErrors.listenFailed(listenErrorMessage(this.listen, error));
    }
    // Accept errors (e.g. EMFILE) must not crash the process; the listener stays up.
    server.on('error', () => undefined);
    this.server = server;
    this.listen = formatBoundAddress(server.address() as AddressInfo);
    return true;
  }

  /** Closes the listener and every open connection; resolves when the port is free. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const connection of this.connections) connection.stop();
    this.connections.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Toxiproxy's `Proxy.Update`: omitted fields were filled with the current values by the caller. */
  async update(settings: ProxySettings): Promise<void> {
    if (settings.listen !== this.listen || settings.upstream !== this.upstream) {
      await this.stop();
      this.listen = settings.listen;
      this.upstream = settings.upstream;
    }
    if (settings.enabled && !this.enabled) await this.start();
    if (!settings.enabled && this.enabled) await this.stop();
  }

  toJSON(): ProxyJson {
    return {
      name: this.name,
      listen: this.listen,
      upstream: this.upstream,
      enabled: this.enabled,
      toxics: this.toxics.list().map((toxic) => toxic.toJSON()),
    };
  }

  /** Connection records (closed ones first), with live byte counts for the open ones. */
  connectionRecords(): ReturnType<FaultTimeline['connections']> {
    for (const connection of this.connections) connection.refreshRecord();
    return this.timeline.connections();
  }
}
