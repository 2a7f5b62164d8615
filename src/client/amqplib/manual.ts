/**
 * amqplib with the harness's own recovery (`amqplib`): plain connections; after a fault,
 * `ensureConnected` reconnects with bounded exponential backoff (over every URL given, in
 * turn) and re-opens every publisher and consumer. The loop is ours, so its settings are ours:
 * `defaults` are the harness's (10 ms first retry), `normalised` the shared ones.
 *
 * This is the one place the harness recovers, and it is labelled so: amqplib itself never
 * re-opens a channel the broker closed nor consumes again after a broker's basic.cancel. The
 * harness loop does both while the connection stays up (a new channel, retried with the loop's
 * backoff until it works, e.g. until the deleted queue exists again), and `ensureConnected`
 * waits for them; amqplib's own signals are reported as they come.
 */
import amqp from 'amqplib';
import { TimeoutError, describeError } from '../../errors';
import { elapsedMs, nowNs, sleep } from '../../measure/clock';
import type { ClientAdapter, ClientInfo, ClientProfile, ConnectOptions, EnsureResult, SignalSupport } from '../api';
import { NORMALISED_SETTINGS } from '../api';
import { backoffDelayMs } from '../backoff';
import { AmqplibConnectionBase } from './connection';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../types';
import { bounded } from '../bounded';
import type { ChannelBinding } from './binding';
import { closeBounded, packageVersion, socketOf, withHeartbeat } from './common';

interface ManualSettings {
  readonly heartbeatSeconds: number | undefined;
  readonly backoff: BackoffOptions;
  readonly connectTimeoutMs: number;
}

function settingsOf(profile: ClientProfile): ManualSettings {
  if (profile === 'normalised') {
    return {
      heartbeatSeconds: NORMALISED_SETTINGS.heartbeatSeconds,
      backoff: {
        ...DEFAULT_BACKOFF,
        initialDelayMs: NORMALISED_SETTINGS.firstRetryDelayMs,
        maxDelayMs: NORMALISED_SETTINGS.maxRetryDelayMs,
      },
      connectTimeoutMs: NORMALISED_SETTINGS.connectTimeoutMs,
    };
  }
  // The harness loop's own defaults; amqplib's heartbeat default (the broker's proposal).
  return { heartbeatSeconds: undefined, backoff: DEFAULT_BACKOFF, connectTimeoutMs: 2000 };
}

class AmqplibManualConnection extends AmqplibConnectionBase {
  readonly info: ClientInfo;
  /** Bumped on every connection; events of an older one are ignored. */
  private generation = 0;
  private urlIndex = 0;
  /** Bindings the harness loop is re-opening while the connection stays up, with the last attempt's error. */
  private readonly repairs = new Map<ChannelBinding, unknown>();

  constructor(
    private readonly urls: readonly string[],
    private readonly settings: ManualSettings,
    private readonly connectionName: string | undefined,
    info: ClientInfo,
  ) {
    super();
    this.info = info;
    this.current = 'down';
  }

  override ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    return this.everythingBack(
      deadlineMs,
      (remainingMs) => this.reconnect(remainingMs),
      (lost) => `the harness loop is still re-opening ${lost.map((binding) => this.describeRepair(binding)).join('; ')}`,
    );
  }

  /** The harness loop: reconnect (bounded backoff, URLs in turn) and re-open every binding. */
  private async reconnect(deadlineMs: number): Promise<EnsureResult> {
    const startedNs = nowNs();
    let lastError: unknown;
    for (let attempt = 1; this.current !== 'closed'; attempt += 1) {
      this.attemptsSinceFault = attempt;
      const remainingMs = deadlineMs - elapsedMs(startedNs, nowNs());
      try {
        await bounded(this.connectOnce(), Math.max(1, remainingMs), `connection attempt took longer than ${Math.round(remainingMs)} ms`);
        return { attempts: attempt, connectedNs: nowNs() };
      } catch (error) {
        lastError = error;
      }
      const delayMs = backoffDelayMs(this.settings.backoff, attempt);
      if (elapsedMs(startedNs, nowNs()) + delayMs > deadlineMs) break;
      await sleep(delayMs);
    }
    throw new TimeoutError(`could not reconnect within ${deadlineMs} ms: ${describeError(lastError)}`);
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    this.generation += 1;
    const model = this.model;
    this.model = undefined;
    for (const binding of this.bindings) binding.detach();
    if (!(await closeBounded(model, socketOf(model)))) this.noteCloseBoundHit();
  }

  /** One attempt on the next URL: connect, then re-open every publisher and consumer. */
  async connectOnce(): Promise<void> {
    const generation = ++this.generation;
    const old = this.model;
    this.model = undefined;
    // What is left of the old connection: its socket may still be half-open.
    socketOf(old)?.destroy();
    for (const binding of this.bindings) binding.detach();
    const url = this.urls[this.urlIndex++ % this.urls.length]!;
    const model = await amqp.connect(withHeartbeat(url, this.settings.heartbeatSeconds), {
      timeout: this.settings.connectTimeoutMs,
      noDelay: true,
      ...(this.connectionName ? { clientProperties: { connection_name: this.connectionName } } : {}),
    });
    // Times are taken inside these listeners: that is the moment the client learned of the fault.
    model.on('error', (error: Error) => generation === this.generation && this.reportFault(error));
    this.mapBlocking(model, () => generation === this.generation);
    model.on(
      'close',
      (error?: Error) =>
        generation === this.generation && this.reportFault(error ?? new Error('connection closed'), error ? undefined : 'closed'),
    );
    try {
      for (const binding of this.bindings) await binding.attach(model);
      if (generation !== this.generation) throw new Error('connection was closed while setting up');
    } catch (error) {
      socketOf(model)?.destroy();
      throw error;
    }
    this.model = model;
    this.reportBack();
    // A binding the broker took away while this connection was being set up.
    for (const binding of this.bindings) if (!binding.ready) this.afterLoss(binding);
  }

  /** The harness loop's part that amqplib lacks: re-open what the broker took away, the connection staying up. */
  protected afterLoss(binding: ChannelBinding): void {
    if (!this.repairs.has(binding)) void this.repair(binding);
  }

  /**
   * Re-opens `binding` (a new channel; a consumer consumes again) on the current connection,
   * retrying with the loop's backoff until it works (a deleted queue declared again); stops when
   * the connection goes (a reconnection re-opens everything) or the binding is closed.
   */
  private async repair(binding: ChannelBinding): Promise<void> {
    this.repairs.set(binding, undefined);
    const generation = this.generation;
    try {
      for (let attempt = 1; ; attempt += 1) {
        const model = this.model;
        if (generation !== this.generation || this.current !== 'up' || !model || !this.bindings.has(binding) || binding.ready) return;
        try {
          await binding.attach(model);
          this.notifyBindings();
          return;
        } catch (error) {
          this.repairs.set(binding, error);
        }
        // The loop's backoff, cut short only by a close or a fault (no timer outlives `close()`).
        const untilMs = performance.now() + backoffDelayMs(this.settings.backoff, attempt);
        while (performance.now() < untilMs && generation === this.generation && this.current === 'up')
          await this.waitForBindings(untilMs - performance.now());
      }
    } finally {
      this.repairs.delete(binding);
    }
  }

  private describeRepair(binding: ChannelBinding): string {
    const lastError = this.repairs.get(binding);
    const lastAttempt = lastError === undefined ? '' : `; last attempt: ${describeError(lastError)}`;
    return `the ${binding.label} (${binding.loss?.message ?? 'no channel'}${lastAttempt})`;
  }
}

/** amqplib's own signals, and what the harness loop (not amqplib) does after each. */
const SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "the channel's 'error' event (code, classId, methodId; 'Channel closed by server: 404 (NOT-FOUND) ...') on a publisher's or consumer's channel, the connection staying up; amqplib does not re-open the channel: the harness loop re-opens channels (its own recovery)",
  consumer_cancelled:
    "the consume callback called with null (basic.cancel, then the channel's 'cancel' event), the channel staying open; amqplib does not consume again: the harness loop re-consumes on a new channel, with its backoff until the queue exists again (its own recovery)",
  blocked: "the connection's 'blocked' event (reason); amqplib itself does not hold publishes back",
  unblocked: "the connection's 'unblocked' event",
});

export const amqplibManualAdapter: ClientAdapter = {
  name: 'amqplib',
  library: 'amqplib',
  multipleHosts: true,
  recovery: 'harness',
  signals: SIGNALS,
  acks: { multiple: true, nack: true },
  settings: (profile) => {
    const settings = settingsOf(profile);
    return {
      recovery:
        'harness loop (ensureConnected reconnects; the harness loop re-opens channels the broker closes / re-consumes after a broker cancel)',
      heartbeat: settings.heartbeatSeconds ?? 'default (the broker proposes 60 s)',
      first_retry_ms: settings.backoff.initialDelayMs,
      max_retry_ms: settings.backoff.maxDelayMs,
      connect_timeout_ms: settings.connectTimeoutMs,
      // The loop is the harness's: its connections always set TCP_NODELAY.
      no_delay: true,
    };
  },
  // `heartbeat` is a URL parameter for amqplib; the bare script puts it there, the rest are socket options.
  bareOptions: (profile) => {
    const settings = settingsOf(profile);
    return {
      ...(settings.heartbeatSeconds === undefined ? {} : { heartbeat: settings.heartbeatSeconds }),
      noDelay: true,
      timeout: settings.connectTimeoutMs,
    };
  },
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const connection = new AmqplibManualConnection(options.urls, settingsOf(profile), options.connectionName, {
      name: 'amqplib',
      profile,
      library: 'amqplib',
      version: packageVersion('amqplib'),
      settings: amqplibManualAdapter.settings(profile),
      multipleHosts: true,
      recovery: 'harness',
      signals: SIGNALS,
    });
    await bounded(connection.connectOnce(), options.startBoundMs ?? 10_000, 'first connection took too long').catch(
      async (error: unknown) => {
        await connection.close();
        throw error;
      },
    );
    return connection;
  },
};
