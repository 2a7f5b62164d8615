/**
 * Every client the harness can measure, by name. To add a library: a folder under src/client/
 * with a `ClientAdapter`, and a line here. Worker threads build their own connection from a
 * `ClientSpec` (plain data) through `connectClient`.
 */
import {
  CLIENT_NAMES,
  CLIENT_PROFILES,
  type ClientAdapter,
  type ClientConnection,
  type ClientInfo,
  type ClientName,
  type ClientSpec,
  type ConnectOptions,
} from './api';
import { amqplibManualAdapter } from './amqplib/manual';
import { amqplibRecoveryAdapter } from './amqplib/recovery';
import { amqpConnectionManagerAdapter } from './amqpConnectionManager/adapter';
import { cloudamqpAdapter } from './cloudamqp/adapter';
import { packageVersion } from './amqplib/common';
import { rabbitmqClientAdapter } from './rabbitmqClient/adapter';

const ADAPTERS: Partial<Record<ClientName, ClientAdapter>> = {
  amqplib: amqplibManualAdapter,
  'amqplib-recovery': amqplibRecoveryAdapter,
  'amqp-connection-manager': amqpConnectionManagerAdapter,
  cloudamqp: cloudamqpAdapter,
  'rabbitmq-client': rabbitmqClientAdapter,
};

/** The adapter of `name`. @throws Error naming the known clients */
export function adapterOf(name: ClientName): ClientAdapter {
  const adapter = ADAPTERS[name];
  if (!adapter) throw new Error(`no adapter for client ${JSON.stringify(name)}; known: ${Object.keys(ADAPTERS).join(', ')}`);
  return adapter;
}

/** Client names with an adapter, in CLIENT_NAMES order. */
export function availableClients(): ClientName[] {
  return CLIENT_NAMES.filter((name) => ADAPTERS[name] !== undefined);
}

/** Opens a connection of the client `spec` names (the first connection made, within `options.startBoundMs`). */
export function connectClient(spec: ClientSpec, options: ConnectOptions): Promise<ClientConnection> {
  return adapterOf(spec.name).connect(spec.profile, options);
}

/** What a result records of a client configuration, without connecting. */
export function clientInfo(spec: ClientSpec): ClientInfo {
  const adapter = adapterOf(spec.name);
  return {
    name: spec.name,
    profile: spec.profile,
    library: adapter.library,
    version: packageVersion(adapter.library),
    settings: adapter.settings(spec.profile),
    multipleHosts: adapter.multipleHosts,
    recovery: adapter.recovery,
    signals: adapter.signals,
  };
}

/** Every configuration of every available client (each in both profiles). */
export function allClientSpecs(): ClientSpec[] {
  return availableClients().flatMap((name) => CLIENT_PROFILES.map((profile) => ({ name, profile })));
}
