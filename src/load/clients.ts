/**
 * The client connections of a load run: one per producer and one per consumer of its share,
 * each named `<prefix>-p<index>` / `<prefix>-c<index>` by its global index and watched by a
 * supervisor. `close()` cancels the consumers and closes every connection (bounded by the
 * adapters), also after a partial start.
 */
import { connectClient } from '../client/registry';
import type { ClientConnection, ClientSpec, Consumer } from '../client/api';
import type { LoadRecorder } from './recorder';
import { queueIndexOf, type LoadShare } from './share';
import { startConsumer } from './consume';
import { superviseConnection } from './supervise';
import type { ProducerPlan } from './traffic';
import type { LoadWorkload } from './workload';

/** Bound on each client's first connection. */
const START_BOUND_MS = 10_000;

export interface LoadClients {
  readonly producers: readonly ProducerPlan[];
  /** Every connection, producers first, each with its name's role (`p3`, `c0`). */
  readonly connections: readonly { readonly role: string; readonly connection: ClientConnection }[];
  readonly supervisors: readonly ReturnType<typeof superviseConnection>[];
  /** Starts the share's consumers, recording into `recorder`. */
  startConsumers(recorder: LoadRecorder): Promise<void>;
  /** Connections up now. */
  up(): number;
  close(): Promise<void>;
}

export interface ConnectOptions {
  readonly workload: LoadWorkload;
  readonly share: LoadShare;
  readonly url: string;
  readonly queues: readonly string[];
  readonly connectionNamePrefix: string;
  readonly log: (line: string) => void;
}

/** Connects the share's producers (with their publishers) and consumers (not consuming yet). */
export async function connectLoadClients(options: ConnectOptions): Promise<LoadClients> {
  const { workload, share, queues } = options;
  const spec: ClientSpec = { name: workload.client.name, profile: workload.client.profile };
  const connections: { role: string; connection: ClientConnection }[] = [];
  const supervisors: ReturnType<typeof superviseConnection>[] = [];
  const consumers: Consumer[] = [];
  const producers: ProducerPlan[] = [];
  const consumerConnections: { index: number; connection: ClientConnection }[] = [];
  let closing: Promise<void> | undefined;
  const clients: LoadClients = {
    producers,
    connections,
    supervisors,
    async startConsumers(recorder) {
      for (const { index, connection } of consumerConnections) {
        const queue = queues[queueIndexOf(index, queues.length)]!;
        consumers.push(await startConsumer(connection, queue, { ack: workload.ack, prefetch: workload.prefetch }, recorder));
      }
    },
    up: () => connections.filter(({ connection }) => connection.state === 'up').length,
    close() {
      closing ??= (async () => {
        for (const supervisor of supervisors) supervisor.stop();
        await Promise.allSettled(consumers.map((consumer) => consumer.cancel()));
        await Promise.allSettled(connections.map(({ connection }) => connection.close()));
      })();
      return closing;
    },
  };
  const connect = async (role: string) => {
    const connection = await connectClient(spec, {
      urls: [options.url],
      connectionName: `${options.connectionNamePrefix}-${role}`,
      startBoundMs: START_BOUND_MS,
    });
    connections.push({ role, connection });
    supervisors.push(superviseConnection(connection, options.log));
    return connection;
  };
  try {
    for (const index of share.producers) {
      const connection = await connect(`p${index}`);
      const publisher = await connection.publisher({ confirms: workload.confirmWindow > 0 });
      producers.push({ connection, publisher, queue: queues[queueIndexOf(index, queues.length)]!, globalIndex: index });
    }
    for (const index of share.consumers) consumerConnections.push({ index, connection: await connect(`c${index}`) });
    return clients;
  } catch (error) {
    await clients.close();
    throw error;
  }
}
