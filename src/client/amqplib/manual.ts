/**
 * amqplib with the harness's own recovery (`amqplib`): plain connections; after a fault,
 * `ensureConnected` reconnects with bounded exponential backoff (over every URL given, in
 * turn) and re-opens every publisher and consumer. The loop is ours, so its settings are ours:
 * `defaults` are the harness's (10 ms first retry), `normalised` the shared ones.
 */
import amqp from 'amqplib';
import { TimeoutError, describeError } from '../../errors';
import { elapsedMs, nowNs, sleep } from '../../measure/clock';
import { PENDING_SIGNALS, type ClientAdapter, type ClientInfo, type ClientProfile, type ConnectOptions, type EnsureResult } from '../api';
import { NORMALISED_SETTINGS } from '../api';
import { backoffDelayMs } from '../backoff';
import { AmqplibConnectionBase } from './connection';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../types';
import { bounded } from '../bounded';
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

  async ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    if (this.current === 'up') return { attempts: 0, connectedNs: nowNs() };
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
    await closeBounded(model, socketOf(model));
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
  }
}

export const amqplibManualAdapter: ClientAdapter = {
  name: 'amqplib',
  library: 'amqplib',
  multipleHosts: true,
  recovery: 'harness',
  signals: PENDING_SIGNALS,
  settings: (profile) => {
    const settings = settingsOf(profile);
    return {
      recovery: 'harness loop (ensureConnected)',
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
      signals: PENDING_SIGNALS,
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
