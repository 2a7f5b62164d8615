/**
 * amqplib with its built-in recovery (`amqplib-recovery`, amqplib >= 1.1):
 * `connect(url, { recovery: { setup } })` reconnects by itself from the moment the connection
 * drops; amqplib restores only the connection, so our `setup` re-opens every publisher's and
 * consumer's channel (as an application must). `ensureConnected` waits for that.
 * One URL only: amqplib's recovery reconnects to the URL it was given.
 *
 * The adapter maps amqplib's own signals and adds no recovery amqplib lacks: `setup` runs only
 * on a reconnection, so a channel the broker closes (404, 406) or a consumer it cancels (queue
 * deleted) while the connection stays up stays dead — the signal is reported, publishing fails
 * with it, and `ensureConnected` says so at its deadline (a finding, not something to repair).
 */
import amqp, { type ChannelModel, type RecoveringChannelModel } from 'amqplib';
import type { ClientAdapter, ClientInfo, ClientProfile, ConnectOptions, EnsureResult, SignalSupport } from '../api';
import { NORMALISED_SETTINGS } from '../api';
import type { ChannelBinding } from './binding';
import { AmqplibConnectionBase } from './connection';
import { bounded } from '../bounded';
import { closeBounded, packageVersion, socketOf, withHeartbeat } from './common';

/** amqplib's recovery options for a profile; `undefined` fields are left to amqplib (initialDelay 100, maxDelay 30000). */
function recoveryOptionsOf(profile: ClientProfile): {
  heartbeatSeconds?: number;
  initialDelay?: number;
  maxDelay?: number;
  timeout?: number;
  noDelay?: boolean;
} {
  return profile === 'normalised'
    ? {
        heartbeatSeconds: NORMALISED_SETTINGS.heartbeatSeconds,
        initialDelay: NORMALISED_SETTINGS.firstRetryDelayMs,
        maxDelay: NORMALISED_SETTINGS.maxRetryDelayMs,
        timeout: NORMALISED_SETTINGS.connectTimeoutMs,
        noDelay: NORMALISED_SETTINGS.noDelay,
      }
    : {};
}

class AmqplibRecoveryConnection extends AmqplibConnectionBase {
  readonly info: ClientInfo;
  private recovering: RecoveringChannelModel | undefined;

  constructor(info: ClientInfo) {
    super();
    this.info = info;
    this.current = 'down';
  }

  async start(url: string, profile: ClientProfile, connectionName: string | undefined): Promise<void> {
    const options = recoveryOptionsOf(profile);
    const recovering = await amqp.connect(withHeartbeat(url, options.heartbeatSeconds), {
      ...(options.noDelay === undefined ? {} : { noDelay: options.noDelay }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(connectionName ? { clientProperties: { connection_name: connectionName } } : {}),
      recovery: {
        ...(options.initialDelay === undefined ? {} : { initialDelay: options.initialDelay }),
        ...(options.maxDelay === undefined ? {} : { maxDelay: options.maxDelay }),
        setup: (model: ChannelModel) => this.setup(model),
      },
    });
    this.recovering = recovering;
    recovering.on('disconnect', (error: Error) => this.reportFault(error ?? new Error('connection closed'), error ? undefined : 'closed'));
    recovering.on('reconnect-scheduled', () => {
      this.attemptsSinceFault += 1;
    });
    recovering.on('connect', () => this.reportBack());
    // Forwarded by the recovering model from each connection it opens.
    this.mapBlocking(recovering, () => this.recovering === recovering);
    // Errors are also told through 'disconnect'; without a listener an 'error' would be thrown.
    recovering.on('error', () => undefined);
    recovering.on('reconnect-failed', () => undefined);
    this.reportBack();
  }

  override ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    return this.everythingBack(
      deadlineMs,
      (remainingMs) => this.waitForLibraryRecovery(remainingMs),
      (lost) =>
        `amqplib's recovery re-opens channels and consumers only in setup, on a reconnection, and the connection stayed up: ${lost
          .map((binding) => `the ${binding.label} stays dead (${binding.loss?.message ?? 'no channel'})`)
          .join('; ')}`,
    );
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    const socket = socketOf(this.model);
    const recovering = this.recovering;
    this.recovering = undefined;
    this.model = undefined;
    if (!(await closeBounded(recovering, socket))) this.noteCloseBoundHit();
  }

  /** Nothing: amqplib's recovery leaves it dead while the connection is up (what the library does, reported as it is). */
  protected afterLoss(_binding: ChannelBinding): void {}

  /** Called by amqplib after every successful (re)connection, before it counts as connected. */
  private async setup(model: ChannelModel): Promise<void> {
    for (const binding of this.bindings) binding.detach();
    // The raw connection's 'error' fires before amqplib's 'disconnect': time the fault here.
    model.on('error', (error: Error) => this.model === model && this.reportFault(error));
    for (const binding of this.bindings) await binding.attach(model);
    this.model = model;
  }
}

/** amqplib's own signals (the recovering model forwards the connection's), and that its recovery does nothing after the channel-level ones. */
const SIGNALS: SignalSupport = Object.freeze({
  channel_closed:
    "the channel's 'error' event (code, classId, methodId; 'Channel closed by server: 404 (NOT-FOUND) ...') on a publisher's or consumer's channel, the connection staying up; amqplib's recovery does not re-open it (setup runs only on a reconnection): that publisher or consumer stays dead until the next reconnection",
  consumer_cancelled:
    "the consume callback called with null (basic.cancel, then the channel's 'cancel' event); amqplib's recovery does not consume again while the connection is up: the consumer stays silent until the next reconnection",
  blocked: "the recovering model's 'blocked' event (reason), forwarded from the connection's; amqplib itself does not hold publishes back",
  unblocked: "the recovering model's 'unblocked' event, forwarded from the connection's",
});

export const amqplibRecoveryAdapter: ClientAdapter = {
  name: 'amqplib-recovery',
  library: 'amqplib',
  multipleHosts: false,
  recovery: 'library',
  signals: SIGNALS,
  acks: { multiple: true, nack: true },
  settings: (profile) => {
    const options = recoveryOptionsOf(profile);
    return {
      recovery: 'amqplib built-in (connect recovery + setup)',
      heartbeat: options.heartbeatSeconds ?? 'default (the broker proposes 60 s)',
      first_retry_ms: options.initialDelay ?? 'default (100)',
      max_retry_ms: options.maxDelay ?? 'default (30000)',
      connect_timeout_ms: options.timeout ?? 'default (none)',
      no_delay: options.noDelay ?? 'default (false: Nagle on)',
    };
  },
  // As scripts/bare/amqplib.js takes them: `heartbeat` (a URL parameter), then socket options.
  bareOptions: (profile) => {
    const options = recoveryOptionsOf(profile);
    return {
      ...(options.heartbeatSeconds === undefined ? {} : { heartbeat: options.heartbeatSeconds }),
      ...(options.noDelay === undefined ? {} : { noDelay: options.noDelay }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    };
  },
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const connection = new AmqplibRecoveryConnection({
      name: 'amqplib-recovery',
      profile,
      library: 'amqplib',
      version: packageVersion('amqplib'),
      settings: amqplibRecoveryAdapter.settings(profile),
      multipleHosts: false,
      recovery: 'library',
      signals: SIGNALS,
    });
    await bounded(
      connection.start(options.urls[0]!, profile, options.connectionName),
      options.startBoundMs ?? 10_000,
      'first connection took too long',
    ).catch(async (error: unknown) => {
      await connection.close();
      throw error;
    });
    return connection;
  },
};
