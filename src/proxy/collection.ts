/**
 * Every proxy of one server, by name (Toxiproxy's `proxy_collection.go`). Changes run one at
 * a time, as the Go version holds a lock, so two requests cannot both create one name.
 */
import { apiErrors } from './apiErrors';
import { Proxy, type ProxyRuntime, type ProxySettings } from './proxy';

export interface NamedProxySettings extends ProxySettings {
  readonly name: string;
}

/** Outcome of `/populate`: the proxies handled before any failure, and that failure. */
export interface PopulateOutcome {
  readonly proxies: readonly Proxy[];
  readonly error: unknown;
}

export class ProxyCollection {
  private readonly proxies = new Map<string, Proxy>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly runtime: ProxyRuntime) {}

  /** Runs `change` after every change queued before it. */
  exclusive<T>(change: () => Promise<T> | T): Promise<T> {
    const run = this.tail.then(change);
    this.tail = run.catch(() => undefined);
    return run;
  }

  list(): Proxy[] {
    return [...this.proxies.values()];
  }

  /** @throws ProxyError 404 */
  get(name: string): Proxy {
    const proxy = this.proxies.get(name);
    if (!proxy) throw apiErrors.proxyNotFound();
    return proxy;
  }

  /** Creates and (when enabled) starts a proxy; it is added only if it could listen. @throws ProxyError 409, 500 */
  async add(settings: NamedProxySettings): Promise<Proxy> {
    if (this.proxies.has(settings.name)) throw apiErrors.proxyAlreadyExists();
    const proxy = new Proxy(settings.name, settings.listen, settings.upstream, this.runtime);
    if (settings.enabled) await proxy.start();
    this.proxies.set(settings.name, proxy);
    return proxy;
  }

  /** Stops and forgets a proxy. @throws ProxyError 404 */
  async remove(name: string): Promise<void> {
    const proxy = this.get(name);
    this.proxies.delete(name);
    await proxy.stop();
  }

  /**
   * Toxiproxy's `AddOrReplace`: an existing proxy with the same listen and upstream is kept
   * as it is (toxics and connections included); a different one is stopped and replaced.
   */
  async addOrReplace(settings: NamedProxySettings): Promise<Proxy> {
    const existing = this.proxies.get(settings.name);
    if (existing && existing.listen === settings.listen && existing.upstream === settings.upstream) return existing;
    await existing?.stop();
    const proxy = new Proxy(settings.name, settings.listen, settings.upstream, this.runtime);
    if (settings.enabled) await proxy.start();
    this.proxies.set(settings.name, proxy);
    return proxy;
  }

  /** `/populate`: in order, stopping at the first failure (what was done before it stays). */
  async populate(inputs: readonly NamedProxySettings[]): Promise<PopulateOutcome> {
    const proxies: Proxy[] = [];
    for (const input of inputs) {
      try {
        proxies.push(await this.addOrReplace(input));
      } catch (error) {
        return { proxies, error };
      }
    }
    return { proxies, error: undefined };
  }

  /** `/reset`: every proxy enabled again and stripped of its toxics. @throws ProxyError 500 when one cannot listen */
  async reset(): Promise<void> {
    for (const proxy of this.proxies.values()) {
      await proxy.start();
      proxy.toxics.removeAll();
    }
  }

  /** Stops every proxy (listeners, connections, timers) and forgets them. */
  async closeAll(): Promise<void> {
    const proxies = this.list();
    this.proxies.clear();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  }
}
