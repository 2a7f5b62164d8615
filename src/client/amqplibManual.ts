/**
 * amqplib in `manual` mode: plain connections, and the harness's own reconnect loop
 * (bounded exponential backoff) in `ensureConnection`.
 */
import { classifyFault } from './faults';
import amqp from 'amqplib';
import { TimeoutError, describeError } from '../errors';
import { elapsedMs, nowNs, sleep } from '../measure/clock';
import { backoffDelayMs } from './backoff';
import { closeBounded, connectionUrl, declareConsumer, socketOf } from './amqplibTopology';
import { AmqplibClientBase } from './amqplibBase';
import { DEFAULT_BACKOFF, type BackoffOptions, type ClientOptions, type FaultKind, type EnsureResult } from './types';

export class AmqplibManualClient extends AmqplibClientBase {
  readonly mode = 'manual';
  private readonly backoff: BackoffOptions;
  private closed = false;
  /** Bumped on every connection; events of an older one are ignored. */
  private generation = 0;

  constructor(options: ClientOptions) {
    super(options);
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  }

  async start(): Promise<void> {
    await this.connectOnce();
  }

  async ensureConnection(deadlineMs: number): Promise<EnsureResult> {
    if (this.model && this.topology && !this.inbox.failed) return { attempts: 0, connectedNs: nowNs() };
    const startedNs = nowNs();
    let lastError: unknown;
    for (let attempt = 1; !this.closed; attempt += 1) {
      try {
        await this.connectOnce();
        return { attempts: attempt, connectedNs: nowNs() };
      } catch (error) {
        lastError = error;
      }
      const delayMs = backoffDelayMs(this.backoff, attempt);
      if (elapsedMs(startedNs, nowNs()) + delayMs > deadlineMs) break;
      await sleep(delayMs);
    }
    throw new TimeoutError(`could not reconnect within ${deadlineMs} ms: ${describeError(lastError)}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    const model = this.model;
    this.model = undefined;
    this.topology = undefined;
    await closeBounded(model, socketOf(model));
  }

  private async connectOnce(): Promise<void> {
    // Drop what is left of the old connection first; its socket may still be half-open.
    const generation = ++this.generation;
    const old = this.model;
    this.model = undefined;
    this.topology = undefined;
    if (old) socketOf(old)?.destroy();
    const sink = {
      deliver: (body: Buffer) => generation === this.generation && this.inbox.deliver(body),
      fail: (message: string, kind: FaultKind, error?: unknown) => generation === this.generation && this.inbox.fail(message, kind, error),
    };

    const model = await amqp.connect(connectionUrl(this.options.url, this.options.heartbeatSeconds ?? 0), {
      timeout: this.options.connectTimeoutMs ?? 2000,
      noDelay: true,
      ...(this.options.connectionName ? { clientProperties: { connection_name: this.options.connectionName } } : {}),
    });
    this.inbox.reset();
    // Times are taken inside these listeners: that is the moment the client learned of the fault.
    model.on('error', (error: Error) => sink.fail(`connection error: ${error.message}`, classifyFault(error), error));
    model.on('close', (error?: Error) =>
      sink.fail(`connection closed${error ? `: ${error.message}` : ''}`, error ? classifyFault(error) : 'closed', error),
    );
    try {
      this.topology = await declareConsumer(model, sink, this.options.fanoutExchange, this.options.queueName);
      this.model = model;
    } catch (error) {
      socketOf(model)?.destroy();
      throw error;
    }
  }
}
