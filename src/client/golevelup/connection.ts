/**
 * One @golevelup/nestjs-rabbitmq connection under test: a Nest application context of its own (no
 * HTTP server) built from `RabbitMQModule.forRoot(config)`, and the module's `AmqpConnection`
 * taken from it. The module recovers through amqp-connection-manager: after a drop the manager
 * waits `reconnectTimeInSeconds` and reconnects, and the module's default channel (one
 * ChannelWrapper) re-runs its setup functions, which hold its own init (prefetch, the direct
 * reply-to consumer) and every subscriber (checkQueue, consume), then emits 'connect'. This class
 * only listens: the fault from the earliest event, "back" once the manager and the default
 * channel are connected again.
 */
import type { ChannelModel } from 'amqplib';
import { BrokerError, describeError, TimeoutError } from '../../errors';
import { redactText } from '../../redact';
import type { ClientInfo, ConsumeOptions, Consumer, Delivery, Publisher } from '../api';
import { socketOf } from '../amqplib/common';
import { amqplibFaultWords } from '../amqplib/library';
import { ConnectionBase } from '../connectionBase';
import { GolevelupConsumer, GolevelupPublisher, type ModuleOwner } from './bindings';
import { golevelupModules, type GolevelupAmqpConnection, type GolevelupConfig, type NestContext } from './golevelupApi';
import { withinMs } from '../../measure/clock';
import { unwrapUnhandled } from '../unhandledError';

/** Bound on the module's own close (it waits for outstanding handlers, then for CloseOk; a dead peer never answers). */
const CLOSE_BOUND_MS = 2000;

/** A logger that says nothing: the module logs every (re)connection and failure through Nest's Logger. */
const SILENT_LOGGER = {
  log: () => undefined,
  error: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

let contexts = 0;

export class GolevelupConnection extends ConnectionBase implements ModuleOwner {
  protected override readonly faultWords = amqplibFaultWords;
  readonly info: ClientInfo;
  generation = 0;
  private model: ChannelModel | undefined;
  private managerUp = false;
  private channelUp = false;
  private lastConnectError: unknown;
  lastChannelError: unknown;
  private readonly consumers = new Set<GolevelupConsumer>();

  private constructor(
    info: ClientInfo,
    readonly amqp: GolevelupAmqpConnection,
    private readonly context: NestContext,
    private readonly moduleName: string,
  ) {
    super();
    this.info = info;
    this.current = 'down';
    const manager = amqp.managedConnection;
    manager.on('connect', () => this.onLibraryConnect());
    manager.on('disconnect', ({ err }: { err?: Error }) => this.onLibraryDisconnect(err));
    manager.on('connectFailed', ({ err }: { err: Error }) => {
      this.lastConnectError = err;
      if (this.outage) this.attemptsSinceFault += 1;
    });
    manager.on('blocked', ({ reason }: { reason: string }) => this.current !== 'closed' && this.reportSignal('blocked', reason));
    manager.on('unblocked', () => this.current !== 'closed' && this.reportSignal('unblocked', undefined));
    // The default channel's 'connect' comes once every setup (subscribers included) ran on a new channel.
    amqp.managedChannel.on('error', (error: unknown) => {
      this.lastChannelError = error;
    });
    amqp.managedChannel.on('connect', () => {
      this.channelUp = true;
      this.checkBack();
    });
    if (manager.isConnected()) this.onLibraryConnect();
    // It may have connected while the context was being built: its 'connect' then came before these listeners.
    void amqp.managedChannel.waitForConnect().then(() => {
      if (this.managerUp) this.channelUp = true;
      this.checkBack();
    });
  }

  /**
   * Builds the Nest context (the module connects in it) and waits, bounded, for the first connection.
   * @throws BrokerError at once when the broker refuses the credentials (the module would retry them forever)
   * @throws TimeoutError naming the last failed attempt
   */
  static async open(
    info: ClientInfo,
    config: Omit<GolevelupConfig, 'name' | 'logger'>,
    startBoundMs: number,
  ): Promise<GolevelupConnection> {
    contexts += 1;
    // A name of its own: the module keeps every connection of the process in one static registry, by name.
    const moduleName = `amqp-bench-${process.pid}-${contexts}`;
    const { NestFactory, RabbitMQModule, ModuleRegistry } = golevelupModules();
    const context = await NestFactory.createApplicationContext(
      RabbitMQModule.forRoot({ ...config, name: moduleName, logger: SILENT_LOGGER }),
      {
        logger: false,
        abortOnError: false,
      },
    );
    const amqp = context.get(ModuleRegistry).getConnection(moduleName)!;
    const connection = new GolevelupConnection(info, amqp, context, moduleName);
    try {
      await connection.started(startBoundMs);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  get localPort(): number | undefined {
    return socketOf(this.model)?.localPort;
  }

  private async started(boundMs: number): Promise<void> {
    let onFailed: (arg: { err: Error }) => void = () => undefined;
    const refused = new Promise<Error>((resolve) => {
      onFailed = ({ err }) => {
        if (/ACCESS-REFUSED|\b403\b/.test(err.message)) resolve(err);
      };
      this.amqp.managedConnection.on('connectFailed', onFailed);
    });
    try {
      const outcome = await Promise.race([this.waitUntilBack(boundMs), refused]);
      if (outcome === true) return;
      if (outcome instanceof Error)
        throw new BrokerError(
          `@golevelup/nestjs-rabbitmq: the broker refused the login (${redactText(outcome.message)}); check the user name and password in the URL`,
        );
    } finally {
      this.amqp.managedConnection.removeListener('connectFailed', onFailed);
    }
    const last = this.lastConnectError === undefined ? 'no attempt finished' : redactText(describeError(this.lastConnectError));
    throw new TimeoutError(`@golevelup/nestjs-rabbitmq did not connect within ${boundMs} ms (last attempt: ${last})`);
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    return Promise.resolve(new GolevelupPublisher(options.confirms, this));
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    const consumer = new GolevelupConsumer(queue, options, onDelivery, this);
    this.consumers.add(consumer);
    await consumer.start();
    return consumer;
  }

  destroy(reason: string): void {
    const socket = socketOf(this.amqp.managedConnection.connection);
    this.reportFault(new Error(`connection destroyed by the client: ${reason}`), 'deadline');
    // With an error, so amqplib's socket handler runs and the manager reconnects as after a network fault.
    socket?.destroy(new Error(`connection destroyed by the client: ${reason}`));
  }

  /**
   * The module's own close of this connection (`AmqpConnection.close`: cancel every consumer, wait
   * for handlers in progress, close the channels, then the manager), bounded; then the socket is
   * destroyed whatever the peer did. Not the context's close: the module's shutdown hook closes
   * every connection of its static registry, those of other contexts too
   * (rabbitmq.module.js `onApplicationShutdown`); this connection is taken out of it instead.
   */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.markClosed();
    this.generation += 1;
    for (const consumer of this.consumers) consumer.release();
    const manager = this.amqp.managedConnection;
    const closedInTime = await withinMs(this.amqp.close(), CLOSE_BOUND_MS);
    const model = manager.connection ?? this.model;
    this.model = undefined;
    if (!closedInTime) {
      this.noteCloseBoundHit();
      model?.removeAllListeners('close');
      void manager.close().catch(() => undefined);
      manager.on('connect', () => socketOf(manager.connection)?.destroy(new Error('connection completed after close()')));
    }
    socketOf(model)?.destroy(new Error('closed by the harness'));
    this.forgetInRegistry();
  }

  /** Consumer handlers still waiting for the harness are not this connection's once it moved on. */
  forget(consumer: GolevelupConsumer): void {
    this.consumers.delete(consumer);
  }

  private forgetInRegistry(): void {
    try {
      const registry = this.context.get(golevelupModules().ModuleRegistry);
      const others = registry.getConnections().filter((each) => each.configuration.name !== this.moduleName);
      registry.clearConnections();
      for (const other of others) registry.addConnection(other);
    } catch {
      // A context that failed to build has nothing to forget.
    }
  }

  private checkBack(): void {
    if (this.current === 'down' && this.managerUp && this.channelUp) this.reportBack();
  }

  private onLibraryConnect(): void {
    if (this.current === 'closed') return;
    const model = this.amqp.managedConnection.connection;
    if (model === this.model && this.managerUp) return;
    this.model = model;
    // amqplib's 'error' comes before the manager's 'disconnect' (emitted from amqplib's 'close'
    // once every channel has closed): the earliest moment the fault is known.
    model?.on('error', (error: Error) => {
      if (this.model === model) this.reportFault(unwrapUnhandled(error));
    });
    if (this.outage) this.attemptsSinceFault += 1;
    this.managerUp = true;
    this.checkBack();
  }

  private onLibraryDisconnect(error: Error | undefined): void {
    this.generation += 1;
    this.managerUp = false;
    this.channelUp = false;
    this.reportFault(error ? unwrapUnhandled(error) : new Error('connection closed'), error ? undefined : 'closed');
  }
}
