/**
 * The broker's side of one client connection, found by its `connection_name`: the broker's own
 * name for it (to close it as an operator would) and the heartbeat it negotiated. Asks the
 * management API (BENCH_MANAGEMENT_URL, default http://<broker host>:15672) and falls back to
 * `rabbitmqctl` on this machine, like src/faults/brokerConnections.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import axios from 'axios';

const run = promisify(execFile);

export interface BrokerSideConnection {
  /** The broker's name for it, e.g. `127.0.0.1:50123 -> 127.0.0.1:5672`. */
  readonly name: string;
  /** Negotiated heartbeat, seconds (0: off). */
  readonly heartbeatSeconds: number;
}

function managementApi(amqpUrl: string) {
  const broker = new URL(amqpUrl);
  return axios.create({
    baseURL: (process.env.BENCH_MANAGEMENT_URL ?? `http://${broker.hostname}:15672`).replace(/\/+$/, ''),
    auth: { username: decodeURIComponent(broker.username || 'guest'), password: decodeURIComponent(broker.password || 'guest') },
    timeout: 3000,
  });
}

async function listConnections(amqpUrl: string): Promise<{ name: string; connectionName: string; heartbeatSeconds: number }[]> {
  try {
    const response = await managementApi(amqpUrl).get<
      { name: string; timeout?: number; client_properties?: { connection_name?: string } }[]
    >('/api/connections?columns=name,client_properties,timeout');
    return response.data.map((row) => ({
      name: row.name,
      connectionName: row.client_properties?.connection_name ?? '',
      heartbeatSeconds: row.timeout ?? 0,
    }));
  } catch {
    const { stdout } = await run('rabbitmqctl', ['list_connections', 'name', 'client_properties', 'timeout', '-q', '--formatter', 'json'], {
      timeout: 15_000,
    });
    return (JSON.parse(stdout) as { name: string; timeout?: number; client_properties?: unknown }[]).map((row) => {
      // rabbitmqctl renders client properties as [name, type, value] triples.
      const props = Array.isArray(row.client_properties) ? (row.client_properties as unknown[][]) : [];
      const entry = props.find((triple) => Array.isArray(triple) && triple[0] === 'connection_name');
      return { name: row.name, connectionName: entry ? String(entry[2]) : '', heartbeatSeconds: row.timeout ?? 0 };
    });
  }
}

/** The connection named `connectionName`, waiting (bounded) for the broker to list it. */
export async function findBrokerConnection(amqpUrl: string, connectionName: string, boundMs = 10_000): Promise<BrokerSideConnection> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const found = (await listConnections(amqpUrl)).find((row) => row.connectionName === connectionName);
    if (found) return { name: found.name, heartbeatSeconds: found.heartbeatSeconds };
    if (Date.now() > deadline)
      throw new Error(`the broker lists no connection named ${JSON.stringify(connectionName)} after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Closes it from the broker's side (Connection.Close 320 CONNECTION_FORCED), as an operator would. */
export async function closeFromBroker(amqpUrl: string, connection: BrokerSideConnection, reason: string): Promise<void> {
  try {
    await managementApi(amqpUrl).delete(`/api/connections/${encodeURIComponent(connection.name)}`, { headers: { 'X-Reason': reason } });
  } catch {
    // rabbitmqctl closes by Erlang pid, which only its text output prints in a form it accepts back.
    const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'name', '-q', '--no-table-headers'], { timeout: 15_000 });
    const pid = stdout
      .split('\n')
      .map((line) => line.split('\t'))
      .find(([, name]) => name?.trim() === connection.name)?.[0];
    if (!pid) throw new Error(`rabbitmqctl lists no connection ${JSON.stringify(connection.name)} to close`);
    await run('rabbitmqctl', ['close_connection', pid.trim(), reason], { timeout: 15_000 });
  }
}
