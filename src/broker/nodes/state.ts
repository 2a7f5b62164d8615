/**
 * What `cluster:up` leaves behind for everyone else (the status command, the failover
 * benchmarks' skip decision): the nodes it formed, written once they all run as one cluster.
 * The pid files stay the truth about processes (a restarted node writes a new one).
 */
import fs from 'node:fs';
import { writeFileAtomic } from '../../io/atomicFile';
import type { ClusterLayout } from './layout';
import { portAnswers, runningPid } from './processes';

export interface ClusterStateFile {
  readonly schema_version: 1;
  readonly formed_at: string;
  /** Wall time of `cluster:up`, start to every node joined. */
  readonly up_ms: number;
  readonly nodes: readonly { readonly name: string; readonly amqp_port: number; readonly dist_port: number }[];
}

export function writeClusterState(layout: ClusterLayout, upMs: number, now: Date = new Date()): ClusterStateFile {
  const state: ClusterStateFile = {
    schema_version: 1,
    formed_at: now.toISOString(),
    up_ms: Math.round(upMs),
    nodes: layout.nodes.map((node) => ({ name: node.name, amqp_port: node.amqpPort, dist_port: node.distPort })),
  };
  writeFileAtomic(layout.stateFile, `${JSON.stringify(state, null, 2)}\n`);
  return state;
}

export function readClusterState(layout: ClusterLayout): ClusterStateFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(layout.stateFile, 'utf8')) as Partial<ClusterStateFile>;
    return parsed.schema_version === 1 && Array.isArray(parsed.nodes) ? (parsed as ClusterStateFile) : undefined;
  } catch {
    return undefined;
  }
}

export type ClusterAvailability =
  | { readonly up: true; readonly pids: readonly number[] }
  | { readonly up: false; readonly reason: string; readonly running: readonly string[] };

/**
 * Whether the cluster `cluster:up` formed is running now (synchronous and cheap: a state file
 * and a look at each node's process; no Erlang VM, no socket), so a test file can decide while
 * it is collected whether its cluster tests run or are skipped, and say why.
 */
export function clusterAvailability(layout: ClusterLayout): ClusterAvailability {
  const running = layout.nodes.filter((node) => runningPid(node) !== undefined).map((node) => node.name);
  const state = readClusterState(layout);
  if (!state) {
    return {
      up: false,
      running,
      reason:
        running.length === 0
          ? `no benchmark cluster is up (no ${layout.stateFile}); start one with \`npm run cluster:up\``
          : `the cluster in ${layout.dir} was not formed completely (running: ${running.join(', ')}); \`npm run cluster:down\`, then \`npm run cluster:up\``,
    };
  }
  const down = layout.nodes.filter((node) => !running.includes(node.name)).map((node) => node.name);
  if (down.length > 0) {
    return {
      up: false,
      running,
      reason: `cluster node(s) ${down.join(', ')} not running; \`npm run cluster:status\`, or \`npm run cluster:down && npm run cluster:up\``,
    };
  }
  return { up: true, pids: layout.nodes.map((node) => runningPid(node)!) };
}

/** @throws Error saying how to start the cluster, when it is not up or a node does not accept AMQP connections */
export async function assertClusterUp(layout: ClusterLayout): Promise<void> {
  const availability = clusterAvailability(layout);
  if (!availability.up) throw new Error(`the benchmark cluster is not up: ${availability.reason}`);
  const closed: string[] = [];
  for (const node of layout.nodes) if (!(await portAnswers(node.amqpPort, 2000))) closed.push(node.name);
  if (closed.length > 0) throw new Error(`cluster node(s) ${closed.join(', ')} do not accept AMQP connections; \`npm run cluster:status\``);
}
