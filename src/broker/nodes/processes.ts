/**
 * The operating-system side of a cluster node: its Erlang VM's pid (from the pid file the node
 * writes), whether that pid is alive and really one of our nodes, and signals. A signal goes
 * only to a process whose environment names the node (NODE_MARKER_VARIABLE): a pid file left
 * by a dead node, its pid since reused, must never make us kill another process, least of all
 * the system broker.
 */
import fs from 'node:fs';
import net from 'node:net';
import { sleep } from '../../measure/clock';
import { NODE_MARKER_VARIABLE, type ClusterNode } from './layout';

/** The pid in the node's pid file; undefined when there is none (never started, or cleaned up). */
export function readPidFile(node: Pick<ClusterNode, 'pidFile'>): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(node.pidFile, 'utf8').trim();
  } catch {
    return undefined;
  }
  const pid = Number(text);
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** True while `pid` exists and is not a zombie (an exited child nobody reaped still has a pid). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, owned by another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * True when `pid` is alive and its environment carries our marker for `node`. Reading another
 * process's environment needs the same user (or root): the user who started the cluster.
 */
export function isNodeProcess(pid: number, node: Pick<ClusterNode, 'name'>): boolean {
  if (!isAlive(pid)) return false;
  try {
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return environ.includes(`${NODE_MARKER_VARIABLE}=${node.name}`);
  } catch {
    return false;
  }
}

/** The node's running VM, verified; undefined when it is not running. */
export function runningPid(node: Pick<ClusterNode, 'name' | 'pidFile'>): number | undefined {
  const pid = readPidFile(node);
  return pid !== undefined && isNodeProcess(pid, node) ? pid : undefined;
}

/** Sends SIGKILL to the node's VM (verified first); returns the pid killed, undefined when it was not running. */
export function killNodeProcess(node: Pick<ClusterNode, 'name' | 'pidFile'>): number | undefined {
  const pid = runningPid(node);
  if (pid === undefined) return undefined;
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Waits (bounded) until `pid` is gone; true when it is. */
export async function waitForExit(pid: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/** True when something accepts TCP connections on 127.0.0.1:`port` within `boundMs`. */
export function portAnswers(port: number, boundMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), boundMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
