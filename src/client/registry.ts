/**
 * Every client the harness can measure. A client library is one folder under src/client/ whose
 * library.ts declares it (its packages, its clients' adapters, its own error words) and one line
 * in CLIENT_LIBRARIES below: the names, the import rule (tests/client/importRule.test.ts) and the
 * reading of errors all come from that list. A client from outside this repository is a module
 * of its own (src/client/external.ts). Worker threads build their own connection from a
 * `ClientSpec` (plain data) through `connectClient`.
 */
import { createRequire } from 'node:module';
import {
  CLIENT_PROFILES,
  type ClientAdapter,
  type ClientConnection,
  type ClientInfo,
  type ClientLibrary,
  type ClientProfile,
  type ClientSpec,
  type ConnectOptions,
} from './api';
import { amqplibLibrary } from './amqplib/library';
import { amqpConnectionManagerLibrary } from './amqpConnectionManager/library';
import { cloudamqpLibrary } from './cloudamqp/library';
import { fooFooMqLibrary } from './fooFooMq/library';
import { golevelupLibrary } from './golevelup/library';
import { libraryVersion, loadAdapterModule } from './external';
import { classifyFault, type FaultKind } from './faults';
import { rabbitmqClientLibrary } from './rabbitmqClient/library';
import { rascalLibrary } from './rascal/library';
import { amqp091GoLibrary } from './amqp091Go/library';
import { kombuLibrary } from './kombu/library';
import { pikaLibrary } from './pika/library';
import { isProgramFile, userProgramAdapter } from './process/adapter';

/**
 * One line per client library (a folder under src/client/; for a client in another language, its
 * library.ts names its program in adapters/<language>/), in the order reports list them.
 */
export const CLIENT_LIBRARIES = [
  amqplibLibrary,
  amqpConnectionManagerLibrary,
  rabbitmqClientLibrary,
  cloudamqpLibrary,
  golevelupLibrary,
  rascalLibrary,
  fooFooMqLibrary,
  kombuLibrary,
  pikaLibrary,
  amqp091GoLibrary,
] as const;

type NamesOf<Library> = Library extends ClientLibrary<infer Name> ? Name : never;
/** The clients (libraries and recovery styles) the harness can measure. */
export type ClientName = NamesOf<(typeof CLIENT_LIBRARIES)[number]>;
export const CLIENT_NAMES = CLIENT_LIBRARIES.flatMap((library) => Object.keys(library.clients)) as readonly ClientName[];

const isClientName = (name: string): name is ClientName => (CLIENT_NAMES as readonly string[]).includes(name);

/** The library that offers client `name`. */
function libraryOf(name: ClientName): ClientLibrary {
  return CLIENT_LIBRARIES.find((library) => name in library.clients)!;
}

/** Why `library`'s clients cannot run here, with what to install; undefined when they can. */
function whyUnavailable(library: ClientLibrary): string | undefined {
  const missing = missingPackages(library);
  if (missing.length === 1) return `it needs the npm package ${missing[0]}: npm install ${missing[0]}`;
  if (missing.length > 1) return `it needs the npm packages ${missing.join(', ')}: npm install ${missing.join(' ')}`;
  return library.missing?.();
}

/** Those of `library`'s packages that cannot be loaded here (none when all can). */
function missingPackages(library: ClientLibrary): string[] {
  const resolve = createRequire(__filename).resolve;
  return library.packages.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * The adapter of a client: built in by name, or loaded from its module.
 * @throws Error naming the known clients, or the package to install
 */
export function adapterOf(client: ClientName | Pick<ClientSpec, 'name' | 'module'>): ClientAdapter {
  if (typeof client === 'object' && client.module !== undefined) return loadClientModule(client.module);
  const name = typeof client === 'string' ? client : client.name;
  if (!isClientName(name)) throw new Error(`no adapter for client ${JSON.stringify(name)}; known: ${CLIENT_NAMES.join(', ')}`);
  const library = libraryOf(name);
  const why = whyUnavailable(library);
  if (why !== undefined) throw new Error(`client ${name} cannot run here: ${why}`);
  return (library.clients as Record<string, () => ClientAdapter>)[name]!();
}

/**
 * The adapter a module from outside exports (`--clients ./bench/myClient.ts`), under a name of
 * its own (not a built-in client's).
 * @throws ConfigError naming `setting` and what is wrong with the module
 */
export function loadClientModule(modulePath: string, setting = '--clients'): ClientAdapter {
  // An executable of any language that speaks the client protocol (src/client/process/).
  if (isProgramFile(modulePath)) return userProgramAdapter(modulePath, CLIENT_NAMES, setting);
  return loadAdapterModule(modulePath, CLIENT_NAMES, setting);
}

/** Client names whose library is installed, in CLIENT_NAMES order. */
export function availableClients(): ClientName[] {
  return CLIENT_NAMES.filter((name) => whyUnavailable(libraryOf(name)) === undefined);
}

/** The clients `all` leaves out on this machine, each with why and what to install. */
export function unavailableClients(): { readonly name: ClientName; readonly why: string }[] {
  return CLIENT_NAMES.flatMap((name) => {
    const why = whyUnavailable(libraryOf(name));
    return why === undefined ? [] : [{ name, why }];
  });
}

/**
 * A failure's kind whichever client library gave it (the common reading, then each library's own
 * words): for code that handles errors of any client, such as a chaos thread's.
 */
export function classifyAnyClientFault(error: unknown): FaultKind {
  return classifyFault(error, (each) => CLIENT_LIBRARIES.map((library) => library.faultWords?.(each)).find((kind) => kind !== undefined));
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

/**
 * Parses a client selection (BENCH_CLIENTS): `all`, or a comma-separated list of `name` (both
 * profiles) or `name:profile`, e.g. `amqplib:defaults,rabbitmq-client`. Order kept, duplicates dropped.
 * @returns the specs, or a problem description (the caller turns it into a ConfigError)
 */
export function parseClientSelection(raw: string, available: readonly ClientName[] = availableClients()): ClientSpec[] | string {
  const specs: ClientSpec[] = [];
  const add = (spec: ClientSpec) => {
    if (!specs.some((known) => known.name === spec.name && known.profile === spec.profile)) specs.push(spec);
  };
  for (const entry of raw.split(',').map((part) => part.trim().toLowerCase())) {
    if (entry === '') continue;
    if (entry === 'all') {
      for (const name of available) for (const profile of CLIENT_PROFILES) add({ name, profile });
      continue;
    }
    const [name, profile, extra] = entry.split(':');
    if (extra !== undefined || !isClientName(name!)) return `unknown client "${entry}"`;
    if (!available.includes(name))
      return `client "${name}" cannot run here: ${whyUnavailable(libraryOf(name)) ?? 'its library is not installed'}`;
    if (profile !== undefined && !(CLIENT_PROFILES as readonly string[]).includes(profile))
      return `unknown profile "${profile}" in "${entry}"`;
    for (const each of profile === undefined ? CLIENT_PROFILES : [profile as ClientProfile]) add({ name, profile: each });
  }
  return specs.length > 0 ? specs : 'no client named';
}
