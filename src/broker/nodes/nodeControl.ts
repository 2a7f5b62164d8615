/**
 * Starting, stopping, killing and joining one node of the benchmark cluster. Every wait is
 * bounded; a node that fails to boot is reported with the last lines of its console log.
 * Used by `bench cluster up/down` and by the failover scenarios (kill -9, rolling restart).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TimeoutError } from '../../errors';
import { nowNs, sleep, type Bracket } from '../../measure/clock';
import { nodeEnvironment, nodeFiles, type ClusterLayout, type ClusterNode } from './layout';
import { isAlive, killNodeProcess, listensOn, portAnswers, runningPid, waitForExit } from './processes';
import { runCli } from './rabbitmqctl';

/** Bound on one CLI call that changes a node (stop_app, join_cluster, start_app). */
const CLI_BOUND_MS = 60_000;

/** Writes the node's files and starts it in the background (it outlives this process). */
export function startNode(layout: ClusterLayout, node: ClusterNode): { launcherPid: number } {
  for (const dir of [node.nodeDir, node.mnesiaBase, node.logDir, layout.homeDir]) fs.mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(nodeFiles(node))) fs.writeFileSync(file, content);
  // A pid file left by a killed node would pass for the new one.
  fs.rmSync(node.pidFile, { force: true });
  const log = fs.openSync(node.consoleLog, 'a');
  try {
    // No `ulimit -n` here, and RabbitMQ 3.10's scripts set none (rabbitmq-env sets only
    // ERL_MAX_PORTS, a cap on the VM's ports, not on its files): the node keeps the open-files limit
    // of this process, which Node.js raised to the hard limit at start-up (20000 on the harness's
    // machine: a sockets limit of 17910, where the shared broker's service-set soft 1024 gives 832).
    // A machine with a low hard limit gives a low node: `bench herd` reads the limit and refuses then.
    const child = spawn(path.join(layout.rabbitmqBinDir, 'rabbitmq-server'), [], {
      cwd: node.nodeDir,
      env: nodeEnvironment(layout, node, process.env),
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.on('error', () => undefined);
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${path.join(layout.rabbitmqBinDir, 'rabbitmq-server')} for ${node.name}`);
    return { launcherPid: child.pid };
  } finally {
    fs.closeSync(log);
  }
}

/**
 * Waits until the node runs (its VM is ours, holds the AMQP listener and accepts connections:
 * the listener opens last in a boot). Gives up early when the launcher died without a VM.
 * @throws TimeoutError naming the node, what was seen, and the console log's last lines
 */
export async function waitForNode(node: ClusterNode, boundMs: number, launcherPid?: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  let seen = 'no VM yet';
  for (;;) {
    const pid = runningPid(node);
    if (pid !== undefined) {
      // The VM itself must hold the listener: another process on the port would pass for the node.
      const own = listensOn(pid, node.amqpPort);
      if (own && (await portAnswers(node.amqpPort))) return;
      seen =
        own || !(await portAnswers(node.amqpPort))
          ? `VM ${pid} booting, AMQP port ${node.amqpPort} not open yet`
          : `VM ${pid} booting, AMQP port ${node.amqpPort} held by another process`;
    } else if (launcherPid !== undefined && !isAlive(launcherPid)) {
      throw new TimeoutError(`${node.name} stopped while starting: ${consoleTail(node)} (full log: ${node.consoleLog})`);
    }
    if (Date.now() >= deadline) {
      throw new TimeoutError(`${node.name} not running within ${boundMs} ms (${seen}); last console lines: ${consoleTail(node)}`);
    }
    await sleep(250);
  }
}

/** Joins `node` (already running alone) to the cluster of `seed`. */
export async function joinCluster(layout: ClusterLayout, node: ClusterNode, seed: ClusterNode): Promise<void> {
  await runCli(layout, node, 'rabbitmqctl', ['stop_app'], CLI_BOUND_MS);
  await runCli(layout, node, 'rabbitmqctl', ['join_cluster', seed.name], CLI_BOUND_MS);
  await runCli(layout, node, 'rabbitmqctl', ['start_app'], CLI_BOUND_MS);
}

/**
 * Stops the node gracefully (`rabbitmqctl stop <pidfile>` waits for the VM to exit); a node
 * that does not stop within the bound is killed, so nothing is left running either way.
 * @returns how it ended and when (monotonic bracket around the stop)
 */
export async function stopNode(
  layout: ClusterLayout,
  node: ClusterNode,
  boundMs = CLI_BOUND_MS,
): Promise<{ readonly how: 'stopped' | 'killed' | 'not running'; readonly bracket: Bracket; readonly problem?: string }> {
  const startedNs = nowNs();
  const pid = runningPid(node);
  if (pid === undefined) return { how: 'not running', bracket: { startedNs, completedNs: nowNs() } };
  let problem: string | undefined;
  try {
    await runCli(layout, node, 'rabbitmqctl', ['stop', node.pidFile], boundMs);
  } catch (error) {
    problem = (error as Error).message;
  }
  if (await waitForExit(pid, problem === undefined ? 5000 : 0)) {
    return { how: 'stopped', bracket: { startedNs, completedNs: nowNs() } };
  }
  killNodeProcess(node);
  await waitForExit(pid, 10_000);
  return { how: 'killed', bracket: { startedNs, completedNs: nowNs() }, ...(problem === undefined ? {} : { problem }) };
}

/**
 * kill -9 of the node's VM: what a crashed machine looks like to clients (their TCP peer
 * vanishes; through the fault proxy, the proxy closes their side). Waits until the VM is gone.
 * @throws Error when the node was not running (a failover scenario needs it up)
 */
export async function killNode(node: ClusterNode): Promise<{ readonly pid: number; readonly bracket: Bracket }> {
  const startedNs = nowNs();
  const pid = killNodeProcess(node);
  if (pid === undefined) throw new Error(`${node.name} is not running: nothing to kill (\`npm run cluster:status\`)`);
  const signalledNs = nowNs();
  if (!(await waitForExit(pid, 10_000))) throw new TimeoutError(`${node.name} (pid ${pid}) still alive 10 s after SIGKILL`);
  return { pid, bracket: { startedNs, completedNs: signalledNs } };
}

/** Starts a stopped or killed node again and waits until it runs (it rejoins its cluster by itself). */
export async function restartNode(layout: ClusterLayout, node: ClusterNode, boundMs: number): Promise<Bracket> {
  const startedNs = nowNs();
  const { launcherPid } = startNode(layout, node);
  await waitForNode(node, boundMs, launcherPid);
  return { startedNs, completedNs: nowNs() };
}

/** The last few lines of the node's console output, on one line. */
export function consoleTail(node: Pick<ClusterNode, 'consoleLog'>, lines = 4): string {
  try {
    const text = fs.readFileSync(node.consoleLog, 'utf8');
    return (
      text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .slice(-lines)
        .join(' | ') || '(empty)'
    );
  } catch {
    return '(no console log)';
  }
}
