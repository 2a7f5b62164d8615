/**
 * One agent of a reconnect herd: its share of the herd's connections (index i mod N), each a
 * client of the configuration under test with a consumer on a queue of its own, through the
 * agent's own proxy entry. It records, per connection, when the client reported the drop, when it
 * was back (the client's own recovery; the supervisor only asks for it), and when its consumer
 * received again the probe the coordinator put in its queue before the drop — the moment it
 * consumes again.
 * It reports progress until the coordinator says the herd is done, then its records.
 */
import os from 'node:os';
import { clientInfo, connectClient } from '../../client/registry';
import type { ClientConnection, ClientSpec, Consumer } from '../../client/api';
import { describeError } from '../../errors';
import { nowNs, sleep } from '../../measure/clock';
import { superviseConnection } from '../../load/supervise';
import { openControl, type ControlEndpoint } from '../control';
import type { ControlEnvelope, HerdAgentReport } from '../protocol';

export interface HerdAgentOptions {
  readonly runId: string;
  readonly index: number;
  readonly count: number;
  /** Connections of the whole herd. */
  readonly connections: number;
  readonly client: ClientSpec;
  /** Where its clients connect (its own proxy entry). */
  readonly url: string;
  /** The broker of the control exchange. */
  readonly controlUrl: string;
  readonly barrierBoundMs: number;
  /** How long it waits, from the start, for the coordinator to say the herd is done. */
  readonly runBoundMs: number;
  readonly log: (line: string) => void;
}

/** Connections opened at once (each a TCP and AMQP handshake). */
const CONNECT_BATCH = 5;
/** Bound on each connection's first connect: a thousand handshakes at once on two shared cores take a while. */
const CONNECT_BOUND_MS = 90_000;
const PROGRESS_EVERY_MS = 250;

/** The queue and connection name of herd connection `index`. */
export function herdNames(runId: string, index: number): { readonly queue: string; readonly connection: string } {
  return { queue: `bench-herd-${runId}-q${index}`, connection: `bench-herd-${runId}-c${index}` };
}

interface Watched {
  readonly name: string;
  readonly connection: ClientConnection;
  readonly supervisor: ReturnType<typeof superviseConnection>;
  readonly deliveriesNs: bigint[];
  consumer?: Consumer;
}

/** Runs the agent; resolves with its report (also sent to the coordinator). */
export async function runHerdAgent(options: HerdAgentOptions): Promise<HerdAgentReport> {
  const control = await openControl(options.controlUrl, options.runId, options.index);
  const watched: Watched[] = [];
  let error: string | null = null;
  try {
    await control.send('coordinator', { kind: 'hello', agent: options.index, host: os.hostname(), machine_id: 'herd', pid: process.pid });
    if (!(await control.next((each): each is ControlEnvelope => each.kind === 'setup', options.barrierBoundMs)))
      throw new Error(`no coordinator said setup within ${options.barrierBoundMs / 1000} s`);
    await connectShare(options, watched);
    await control.send('coordinator', { kind: 'ready', agent: options.index });
    if (!(await control.next((each): each is ControlEnvelope => each.kind === 'start', options.barrierBoundMs)))
      throw new Error(`no start within ${options.barrierBoundMs / 1000} s of being ready`);
    const startNs = nowNs();
    await reportUntilDone(control, options, watched, startNs);
  } catch (caught) {
    error = describeError(caught);
    options.log(`herd agent ${options.index}: ${error}`);
  }
  const report = reportOf(options, watched, error);
  try {
    await control.send('coordinator', { kind: 'herd_result', agent: options.index, report });
  } finally {
    for (const each of watched) each.supervisor.stop();
    await Promise.allSettled(watched.flatMap((each) => (each.consumer ? [each.consumer.cancel()] : [])));
    await Promise.allSettled(watched.map((each) => each.connection.close()));
    await control.close();
  }
  return report;
}

async function connectShare(options: HerdAgentOptions, watched: Watched[]): Promise<void> {
  const mine = Array.from({ length: options.connections }, (_, index) => index).filter((index) => index % options.count === options.index);
  for (let from = 0; from < mine.length; from += CONNECT_BATCH) {
    await Promise.all(
      mine.slice(from, from + CONNECT_BATCH).map(async (index) => {
        const names = herdNames(options.runId, index);
        const connection = await connectClient(options.client, {
          urls: [options.url],
          connectionName: names.connection,
          startBoundMs: CONNECT_BOUND_MS,
        });
        const each: Watched = {
          name: names.connection,
          connection,
          supervisor: superviseConnection(connection, options.log),
          deliveriesNs: [],
        };
        watched.push(each);
        // The probe is never acked: the drop puts it back in the queue, and the consumer the
        // client re-establishes receives it again (the moment it consumes again).
        each.consumer = await connection.consume(names.queue, { ack: 'manual', prefetch: 10 }, () => {
          each.deliveriesNs.push(nowNs());
        });
      }),
    );
  }
}

/** The first delivery after the connection's first reported fault (the probe's delivery before the drop does not count). */
function consumedAgainNs(each: Watched): bigint | null {
  const faultNs = each.supervisor.faults[0]?.detectedNs;
  return each.deliveriesNs.find((atNs) => faultNs === undefined || atNs > faultNs) ?? null;
}

async function reportUntilDone(
  control: ControlEndpoint,
  options: HerdAgentOptions,
  watched: readonly Watched[],
  startNs: bigint,
): Promise<void> {
  const deadlineNs = startNs + BigInt(options.runBoundMs) * 1_000_000n;
  while (nowNs() < deadlineNs) {
    const done = await control.next((each): each is ControlEnvelope => each.kind === 'abort', PROGRESS_EVERY_MS);
    if (done) return;
    await control.send('coordinator', {
      kind: 'herd_progress',
      agent: options.index,
      faulted: watched.filter((each) => each.supervisor.faults.length > 0).length,
      consuming_again: watched.filter((each) => each.supervisor.faults.length > 0 && consumedAgainNs(each) !== null).length,
      of: watched.length,
    });
    await sleep(0);
  }
}

function reportOf(options: HerdAgentOptions, watched: readonly Watched[], error: string | null): HerdAgentReport {
  const info = clientInfo(options.client);
  const text = (ns: bigint | null | undefined) => (ns === null || ns === undefined ? null : ns.toString());
  return {
    agent: options.index,
    host: os.hostname(),
    pid: process.pid,
    client: { name: info.name, profile: info.profile, library: info.library, version: info.version },
    connections: watched.map((each) => ({
      name: each.name,
      fault_ns: text(each.supervisor.faults[0]?.detectedNs),
      back_ns: text(each.supervisor.faults[0]?.backNs),
      consumed_again_ns: text(consumedAgainNs(each)),
      faults: each.supervisor.faults.length,
    })),
    error,
  };
}
