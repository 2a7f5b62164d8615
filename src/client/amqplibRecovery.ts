/**
 * amqplib in `amqplib-recovery` mode: amqplib's own recovery (`connect(url, {recovery})`, since
 * 1.1) reconnects by itself from the moment it sees the connection drop; our `setup` re-opens
 * the channel and re-declares and re-consumes, since amqplib restores only the connection.
 * `ensureConnection` waits for that to finish.
 */
import { classifyFault } from './faults';
import amqp, { type ChannelModel, type RecoveringChannelModel } from 'amqplib';
import { TimeoutError } from '../errors';
import { nowNs } from '../measure/clock';
import { closeBounded, connectionUrl, declareConsumer, socketOf, type Topology } from './amqplibTopology';
import { AmqplibClientBase } from './amqplibBase';
import { DEFAULT_BACKOFF, type EnsureResult, type FaultKind } from './types';

export class AmqplibRecoveryClient extends AmqplibClientBase {
  readonly mode = 'amqplib-recovery';
  private recovering: RecoveringChannelModel | undefined;
  /** Topology of the newest connection amqplib brought back, not yet handed to the application. */
  private ready: { model: ChannelModel; topology: Topology } | undefined;
  private readyWaiter: (() => void) | undefined;
  private attemptsSinceFault = 0;

  async start(): Promise<void> {
    const backoff = { ...DEFAULT_BACKOFF, ...this.options.backoff };
    const recovering = await amqp.connect(connectionUrl(this.options.url, this.options.heartbeatSeconds ?? 0), {
      timeout: this.options.connectTimeoutMs ?? 2000,
      noDelay: true,
      ...(this.options.connectionName ? { clientProperties: { connection_name: this.options.connectionName } } : {}),
      recovery: {
        initialDelay: backoff.initialDelayMs,
        maxDelay: backoff.maxDelayMs,
        factor: backoff.factor,
        jitter: backoff.jitter,
        initialMaxRetries: 3,
        setup: (model: ChannelModel) => this.setup(model),
      },
    });
    this.recovering = recovering;
    recovering.on('error', (error: Error) => this.inbox.fail(`connection error: ${error.message}`, classifyFault(error), error));
    recovering.on('disconnect', (error: Error) =>
      this.inbox.fail(`connection lost: ${error.message}`, error ? classifyFault(error) : 'closed', error),
    );
    recovering.on('reconnect-scheduled', () => {
      this.attemptsSinceFault += 1;
    });
    this.adoptReady();
  }

  async ensureConnection(deadlineMs: number): Promise<EnsureResult> {
    if (!this.inbox.failed && this.topology) return { attempts: 0, connectedNs: nowNs() };
    if (!this.ready) {
      let timer: NodeJS.Timeout | undefined;
      const arrived = await new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), deadlineMs);
        this.readyWaiter = () => resolve(true);
      });
      clearTimeout(timer);
      this.readyWaiter = undefined;
      if (!arrived) throw new TimeoutError(`amqplib recovery did not reconnect within ${deadlineMs} ms`);
    }
    const attempts = Math.max(1, this.attemptsSinceFault);
    this.adoptReady();
    return { attempts, connectedNs: nowNs() };
  }

  async close(): Promise<void> {
    const socket = socketOf(this.model);
    const recovering = this.recovering;
    this.recovering = undefined;
    this.model = undefined;
    this.topology = undefined;
    await closeBounded(recovering, socket);
  }

  /** Called by amqplib after every successful (re)connection, before it counts as connected. */
  private async setup(model: ChannelModel): Promise<void> {
    const sink = {
      deliver: (body: Buffer) => this.model === model && this.inbox.deliver(body),
      fail: (message: string, kind: FaultKind, error?: unknown) => this.model === model && this.inbox.fail(message, kind, error),
    };
    // The underlying connection's 'error' fires before amqplib's 'disconnect': time it here.
    model.on('error', (error: Error) => sink.fail(`connection error: ${error.message}`, classifyFault(error), error));
    const topology = await declareConsumer(model, sink, this.options.fanoutExchange, this.options.queueName);
    this.ready = { model, topology };
    this.readyWaiter?.();
  }

  /** Hands the newest connection to the application: from here its events count. */
  private adoptReady(): void {
    if (!this.ready) return;
    this.model = this.ready.model;
    this.topology = this.ready.topology;
    this.ready = undefined;
    this.attemptsSinceFault = 0;
    this.inbox.reset();
  }
}
