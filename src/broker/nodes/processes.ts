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

/**
 * When `pid` started, in clock ticks since boot (`/proc/<pid>/stat`, field 22): with the pid, it
 * names one process for good — a pid reused later has another start. Undefined when it is gone.
 */
export function processStartMarker(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start with field 3, the state.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[22 - 3];
  } catch {
    return undefined;
  }
}

/**
 * Every process that carries the node's marker: its launcher, its VM and the VM's helpers (a
 * node still booting has no pid file yet, a restarting one a stale one). epmd is left out even
 * when this node's VM started it: it serves every Erlang node on the machine.
 */
export function markedProcesses(node: Pick<ClusterNode, 'name'>): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || !isNodeProcess(pid, node)) continue;
    let command: string;
    try {
      command = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (command !== 'epmd') pids.push(pid);
  }
  return pids;
}

/**
 * Two ports the OS reports free on 127.0.0.1 that `usable` accepts (each listened on at port 0,
 * then closed: another process may still take one before the node binds it, so a caller retries).
 * @throws Error after `attempts` pairs refused
 */
export async function freePortPair(
  usable: (ports: { amqpPort: number; distPort: number }) => boolean,
  attempts = 50,
): Promise<{ amqpPort: number; distPort: number }> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const servers = [net.createServer(), net.createServer()];
    const ports = await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
          }),
      ),
    ).finally(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));
    const pair = { amqpPort: ports[0]!, distPort: ports[1]! };
    if (usable(pair)) return pair;
  }
  throw new Error(`no usable pair of free ports in ${attempts} tries (see reservedPorts in soloIdentity.ts)`);
}

/**
 * True when `pid` itself holds a TCP listening socket on `port` (IPv4 or IPv6): a port that merely
 * answers may be another process's, taken between a free-port check and the node's bind.
 */
export function listensOn(pid: number, port: number): boolean {
  const listening = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT, st 0A is LISTEN, the inode is the tenth field.
      const localPort = Number.parseInt(fields[1]?.split(':').pop() ?? '', 16);
      if (localPort === port && fields[3] === '0A' && fields[9]) listening.add(`socket:[${fields[9]}]`);
    }
  }
  if (listening.size === 0) return false;
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return listening.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}
