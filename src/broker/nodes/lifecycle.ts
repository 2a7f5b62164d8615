/**
 * `bench cluster up | down | status`: a local 3-node RabbitMQ cluster beside the system broker
 * (which is never touched: other names, ports, files and cookie). `up` starts the three nodes
 * at once from empty data folders, joins the second and third to the first, and records the
 * cluster; a failure stops whatever it started, so the machine is left as it was found.
 * `down` stops every node (gracefully, killing what does not stop in time) and removes the
 * data, keeping the logs.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BenchError, describeError } from '../../errors';
import { elapsedMs, nowNs } from '../../measure/clock';
import { clusterLayout, type ClusterLayout, type ClusterNode } from './layout';
import { joinCluster, startNode, stopNode, waitForNode } from './nodeControl';
import { portAnswers, runningPid } from './processes';
import { runCli } from './rabbitmqctl';
import type { ClusterSettings } from './settings';
import { clusterAvailability, readClusterState, writeClusterState } from './state';

/** Bound on a node's boot (three Erlang VMs start together on two shared cores). */
const BOOT_BOUND_MS = 120_000;

export type Log = (line: string) => void;

/** Starts the cluster; resolves with the time it took. @throws BenchError (one line) after stopping what it started */
export async function clusterUp(settings: ClusterSettings, log: Log): Promise<number> {
  const layout = clusterLayout(settings);
  const startedNs = nowNs();
  const availability = clusterAvailability(layout);
  if (availability.up) {
    log(`cluster: already up (${layout.nodes.map((node) => node.name).join(', ')}); nothing to do`);
    return 0;
  }
  if (availability.running.length > 0) {
    throw new BenchError(
      'BROKER_UNREACHABLE',
      `a partial cluster is running (${availability.running.join(', ')}); run \`npm run cluster:down\` first`,
    );
  }
  await preflight(layout);
  fs.rmSync(layout.stateFile, { force: true });
  for (const node of layout.nodes) {
    fs.rmSync(node.mnesiaBase, { recursive: true, force: true });
    fs.rmSync(node.consoleLog, { force: true });
  }
  ensureCookie(layout);

  const started: ClusterNode[] = [];
  try {
    log(`cluster: starting ${layout.nodes.map((node) => `${node.name} (AMQP ${node.amqpPort})`).join(', ')} from ${layout.dir}`);
    const launchers = layout.nodes.map((node) => {
      const launched = startNode(layout, node);
      started.push(node);
      return launched.launcherPid;
    });
    await Promise.all(
      layout.nodes.map(async (node, index) => {
        await waitForNode(node, BOOT_BOUND_MS, launchers[index]);
        log(`cluster: ${node.name} running (${seconds(startedNs)})`);
      }),
    );
    const [seed, ...joiners] = layout.nodes as [ClusterNode, ...ClusterNode[]];
    await Promise.all(
      joiners.map(async (node) => {
        await joinCluster(layout, node, seed);
        log(`cluster: ${node.name} joined ${seed.name} (${seconds(startedNs)})`);
      }),
    );
    const members = await runningMembers(layout, seed);
    const missing = layout.nodes.filter((node) => !members.includes(node.name)).map((node) => node.name);
    if (missing.length > 0) throw new Error(`${seed.name} does not list ${missing.join(', ')} as running cluster members`);
    const upMs = elapsedMs(startedNs, nowNs());
    writeClusterState(layout, upMs);
    log(
      `cluster: ${layout.nodes.length} nodes running as one cluster in ${(upMs / 1000).toFixed(1)} s: ${layout.nodes.map((node) => `127.0.0.1:${node.amqpPort}`).join(', ')} (stop it with \`npm run cluster:down\`)`,
    );
    return upMs;
  } catch (error) {
    const reason = describeError(error);
    await Promise.all(started.map((node) => stopNode(layout, node, 30_000).catch(() => undefined)));
    fs.rmSync(layout.stateFile, { force: true });
    throw new BenchError(
      'BROKER_UNREACHABLE',
      `cluster not formed: ${reason}; the nodes it started are stopped again (logs: ${path.join(layout.dir, 'nodes', '*', 'log')})`,
    );
  }
}

/** Stops every node and removes the data; resolves with the time it took. @throws BenchError when a node survives */
export async function clusterDown(settings: ClusterSettings, log: Log): Promise<number> {
  const layout = clusterLayout(settings);
  const startedNs = nowNs();
  const outcomes = await Promise.all(layout.nodes.map(async (node) => ({ node, ...(await stopNode(layout, node)) })));
  for (const outcome of outcomes) {
    if (outcome.how === 'not running') continue;
    log(`cluster: ${outcome.node.name} ${outcome.how}${outcome.problem ? ` (graceful stop failed: ${outcome.problem})` : ''}`);
  }
  const survivors = layout.nodes.filter((node) => runningPid(node) !== undefined).map((node) => node.name);
  if (survivors.length > 0) throw new BenchError('BROKER_UNREACHABLE', `still running after stop and kill: ${survivors.join(', ')}`);
  fs.rmSync(layout.stateFile, { force: true });
  for (const node of layout.nodes) {
    fs.rmSync(node.mnesiaBase, { recursive: true, force: true });
    fs.rmSync(node.pidFile, { force: true });
  }
  const downMs = elapsedMs(startedNs, nowNs());
  const stopped = outcomes.filter((outcome) => outcome.how !== 'not running').length;
  log(
    stopped === 0
      ? 'cluster: no node was running; data removed'
      : `cluster: down in ${(downMs / 1000).toFixed(1)} s; no node process left, data removed (logs kept in ${path.join(layout.dir, 'nodes', '*', 'log')})`,
  );
  return downMs;
}

/** Prints each node's state; resolves true when the cluster is up. */
export async function clusterStatus(settings: ClusterSettings, log: Log): Promise<boolean> {
  const layout = clusterLayout(settings);
  const state = readClusterState(layout);
  for (const node of layout.nodes) {
    const pid = runningPid(node);
    const port = pid === undefined ? false : await portAnswers(node.amqpPort);
    log(
      `cluster: ${node.name}  AMQP 127.0.0.1:${node.amqpPort}  dist ${node.distPort}  ${pid === undefined ? 'not running' : `pid ${pid}, AMQP ${port ? 'open' : 'not open yet'}`}`,
    );
  }
  const availability = clusterAvailability(layout);
  if (!availability.up) {
    log(`cluster: down: ${availability.reason}`);
    return false;
  }
  const seed = layout.nodes[0]!;
  const members = await runningMembers(layout, seed).catch((error: unknown) => [`(cluster_status failed: ${describeError(error)})`]);
  log(
    `cluster: up since ${state?.formed_at ?? '?'} (formed in ${((state?.up_ms ?? 0) / 1000).toFixed(1)} s); running members: ${members.join(', ')}`,
  );
  return true;
}

/** Running members as the given node sees them (`rabbitmqctl cluster_status`). */
export async function runningMembers(layout: ClusterLayout, node: ClusterNode): Promise<string[]> {
  const { stdout } = await runCli(layout, node, 'rabbitmqctl', ['cluster_status', '--formatter', 'json'], 60_000);
  const parsed = JSON.parse(stdout) as { running_nodes?: unknown };
  return Array.isArray(parsed.running_nodes) ? parsed.running_nodes.map(String) : [];
}

async function preflight(layout: ClusterLayout): Promise<void> {
  const server = path.join(layout.rabbitmqBinDir, 'rabbitmq-server');
  if (!fs.existsSync(server)) {
    throw new BenchError(
      'CONFIG_INVALID',
      `${server} not found: install Debian's rabbitmq-server (apt-get install rabbitmq-server), or set BENCH_CLUSTER_SBIN to the folder holding RabbitMQ's scripts`,
    );
  }
  for (const node of layout.nodes) {
    for (const [what, port] of [
      ['AMQP', node.amqpPort],
      ['distribution', node.distPort],
    ] as const) {
      if (await portAnswers(port, 300)) {
        throw new BenchError(
          'CONFIG_INVALID',
          `port ${port} (${what} of ${node.name}) is already taken; free it, or move the cluster with BENCH_CLUSTER_AMQP_PORT / BENCH_CLUSTER_DIST_PORT`,
        );
      }
    }
  }
}

/** The cluster's own cookie, created once (random, readable by its owner only). */
export function ensureCookie(layout: ClusterLayout): void {
  fs.mkdirSync(layout.homeDir, { recursive: true, mode: 0o700 });
  if (fs.existsSync(layout.cookieFile)) return;
  const cookie = [...randomBytes(20)].map((byte) => String.fromCharCode(65 + (byte % 26))).join('');
  fs.writeFileSync(layout.cookieFile, cookie, { mode: 0o400 });
}

function seconds(startedNs: bigint): string {
  return `${(elapsedMs(startedNs, nowNs()) / 1000).toFixed(1)} s`;
}
