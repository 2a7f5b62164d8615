/**
 * The part of @golevelup/nestjs-rabbitmq 9's and NestJS 11's API the adapter uses, declared here
 * and loaded only when a golevelup client is asked for: the packages are optional, so the project
 * type-checks and builds without them (lib/amqp/connection.d.ts, lib/amqp/connectionManager.d.ts,
 * lib/amqp/handlerResponses.d.ts, lib/rabbitmq.module.d.ts; @nestjs/core's NestFactory).
 * What the module hands out of amqp-connection-manager is typed by that library's own types.
 */
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { ConsumeMessage, Options } from 'amqplib';

/** The module's `Nack`: a handler resolving to one nacks the delivery (requeued or not). */
export interface GolevelupNack {
  readonly requeue: boolean;
}

/** What `RabbitMQModule.forRoot` takes, as far as the adapter sets it. */
export interface GolevelupConfig {
  readonly name: string;
  readonly uri: string | string[];
  readonly logger: Readonly<Record<'log' | 'error' | 'warn' | 'debug' | 'verbose', () => undefined>>;
  /** Handed to amqp-connection-manager's `connect` as is (lib/amqp/connection.js). */
  readonly connectionManagerOptions?: unknown;
  readonly connectionInitOptions?: { readonly wait?: boolean };
}

/** The module's `AmqpConnection` (lib/amqp/connection.d.ts). */
export interface GolevelupAmqpConnection {
  readonly managedChannel: ChannelWrapper;
  readonly managedConnection: AmqpConnectionManager;
  readonly configuration: { readonly name: string };
  createSubscriber(
    handler: (message: unknown, raw?: ConsumeMessage) => Promise<GolevelupNack | undefined>,
    messageOptions: Readonly<Record<string, unknown>>,
    originalHandlerName: string,
    consumeOptions?: Options.Consume,
  ): Promise<unknown>;
  publish(exchange: string, routingKey: string, message: unknown, options?: Options.Publish): Promise<boolean>;
  cancelConsumer(consumerTag: string): Promise<void>;
  close(): Promise<void>;
}

/** The module's registry of every connection in the process, by name (lib/amqp/connectionManager.d.ts). */
export interface GolevelupRegistry {
  addConnection(connection: GolevelupAmqpConnection): void;
  getConnection(name: string): GolevelupAmqpConnection | undefined;
  getConnections(): GolevelupAmqpConnection[];
  clearConnections(): void;
}

/** A Nest application context (no HTTP server): what the adapter asks of it. */
export interface NestContext {
  get(token: unknown): GolevelupRegistry;
  close(): Promise<void>;
}

export interface GolevelupModules {
  /** `Nack` (lib/amqp/handlerResponses.js). */
  readonly Nack: new (requeue?: boolean) => GolevelupNack;
  /** `AmqpConnectionManager`, the registry's class, as the context's token for it. */
  readonly ModuleRegistry: unknown;
  /** `RabbitMQModule.forRoot(config)`: the dynamic module the context is built from. */
  readonly RabbitMQModule: { forRoot(config: GolevelupConfig): unknown };
  /** `NestFactory.createApplicationContext` of @nestjs/core. */
  readonly NestFactory: { createApplicationContext(module: unknown, options: Readonly<Record<string, unknown>>): Promise<NestContext> };
}

/** The installed module and Nest's core (loaded here, only when a golevelup client is asked for). */
export function golevelupModules(): GolevelupModules {
  /* eslint-disable @typescript-eslint/no-require-imports -- optional packages: declared above, loaded on first use */
  const rabbitmq = require('@golevelup/nestjs-rabbitmq') as Omit<GolevelupModules, 'NestFactory' | 'ModuleRegistry'> & {
    AmqpConnectionManager: unknown;
  };
  const core = require('@nestjs/core') as Pick<GolevelupModules, 'NestFactory'>;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    Nack: rabbitmq.Nack,
    ModuleRegistry: rabbitmq.AmqpConnectionManager,
    RabbitMQModule: rabbitmq.RabbitMQModule,
    NestFactory: core.NestFactory,
  };
}
