/**
 * Every client the harness can measure, by name. To add a library: a folder under src/client/
 * with a `ClientAdapter`, and a line here — or, outside this repository, a module of its own
 * (src/client/external.ts). Worker threads build their own connection from a
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
import { libraryVersion, loadAdapterModule } from './external';
import { rabbitmqClientAdapter } from './rabbitmqClient/adapter';

const ADAPTERS: Partial<Record<ClientName, ClientAdapter>> = {
  amqplib: amqplibManualAdapter,
  'amqplib-recovery': amqplibRecoveryAdapter,
  'amqp-connection-manager': amqpConnectionManagerAdapter,
  cloudamqp: cloudamqpAdapter,
  'rabbitmq-client': rabbitmqClientAdapter,
};

/** The adapter of a client: built in by name, or loaded from its module. @throws Error naming the known clients */
export function adapterOf(client: ClientName | Pick<ClientSpec, 'name' | 'module'>): ClientAdapter {
  if (typeof client === 'object' && client.module !== undefined) return loadAdapterModule(client.module);
  const name = typeof client === 'string' ? client : client.name;
  const adapter = ADAPTERS[name as ClientName];
  if (!adapter) throw new Error(`no adapter for client ${JSON.stringify(name)}; known: ${Object.keys(ADAPTERS).join(', ')}`);
  return adapter;
}

/** Client names with an adapter, in CLIENT_NAMES order. */
export function availableClients(): ClientName[] {
  return CLIENT_NAMES.filter((name) => ADAPTERS[name] !== undefined);
}

/** Opens a connection of the client `spec` names (the first connection made, within `options.startBoundMs`). */
export function connectClient(spec: ClientSpec, options: ConnectOptions): Promise<ClientConnection> {
  return adapterOf(spec).connect(spec.profile, options);
}

/** What a result records of a client configuration, without connecting. */
export function clientInfo(spec: ClientSpec): ClientInfo {
  const adapter = adapterOf(spec);
  return {
    name: spec.name,
    profile: spec.profile,
    library: adapter.library,
    version: adapter.version ?? libraryVersion(adapter.library, spec.module),
    settings: adapter.settings(spec.profile),
    multipleHosts: adapter.multipleHosts,
    recovery: adapter.recovery,
    signals: adapter.signals,
    ...(spec.module === undefined ? {} : { module: spec.module }),
  };
}

/** Every configuration of every available client (each in both profiles). */
export function allClientSpecs(): ClientSpec[] {
  return availableClients().flatMap((name) => CLIENT_PROFILES.map((profile) => ({ name, profile })));
}
