/**
 * Lists the broker's client connections by `connection_name`, to prove a benchmark leaked none.
 * Asks the management API (BENCH_MANAGEMENT_URL, default http://<broker host>:15672, the
 * broker's own credentials) and falls back to `rabbitmqctl` on this machine.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import axios from 'axios';
import { BrokerError } from '../errors';
import { sleep } from '../measure/clock';

const run = promisify(execFile);

export interface ConnectionListing {
  readonly names: readonly string[];
  readonly source: 'management-api' | 'rabbitmqctl';
}

async function fromManagementApi(amqpUrl: string): Promise<ConnectionListing> {
  const broker = new URL(amqpUrl);
  const base = process.env.BENCH_MANAGEMENT_URL ?? `http://${broker.hostname}:15672`;
  const response = await axios.get<{ client_properties?: { connection_name?: string } }[]>(
    `${base.replace(/\/+$/, '')}/api/connections?columns=client_properties`,
    {
      auth: { username: decodeURIComponent(broker.username || 'guest'), password: decodeURIComponent(broker.password || 'guest') },
      timeout: 3000,
    },
  );
  return { names: response.data.map((row) => row.client_properties?.connection_name ?? ''), source: 'management-api' };
}

async function fromRabbitmqctl(): Promise<ConnectionListing> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'client_properties', '-q', '--formatter', 'json'], { timeout: 15_000 });
  const rows = JSON.parse(stdout) as { client_properties?: unknown }[];
  const names = rows.map((row) => {
    // rabbitmqctl renders client properties as [name, type, value] triples.
    const props = Array.isArray(row.client_properties) ? (row.client_properties as unknown[][]) : [];
    const entry = props.find((triple) => Array.isArray(triple) && triple[0] === 'connection_name');
    return entry ? String(entry[2]) : '';
  });
  return { names, source: 'rabbitmqctl' };
}

/** Every client connection's name as the broker sees it. @throws BrokerError when neither source answers */
export async function listBrokerConnections(amqpUrl: string): Promise<ConnectionListing> {
  const failures: string[] = [];
  for (const source of [() => fromManagementApi(amqpUrl), fromRabbitmqctl]) {
    try {
      return await source();
    } catch (error) {
      failures.push(error instanceof Error ? error.message.split('\n')[0]! : String(error));
    }
  }
  throw new BrokerError(
    `cannot list the broker's connections (${failures.join('; ')}); enable the management plugin (rabbitmq-plugins enable rabbitmq_management) or run where rabbitmqctl works`,
  );
}

/**
 * Waits (bounded) until no connection whose name starts with `prefix` is left on the broker;
 * the broker drops closed connections from its list a few ms after the socket closes.
 * Resolves with the names still open at the end (empty: no leak).
 */
export async function waitForNoConnections(
  amqpUrl: string,
  prefix: string,
  boundMs = 10_000,
): Promise<{ leaked: string[]; source: ConnectionListing['source'] }> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const listing = await listBrokerConnections(amqpUrl);
    const leaked = listing.names.filter((name) => name.startsWith(prefix));
    if (leaked.length === 0 || Date.now() >= deadline) return { leaked, source: listing.source };
    await sleep(250);
  }
}
