/**
 * The watch that ends a solo node when the process that started it ends, however it ends: a
 * Ctrl-C, a SIGTERM or SIGKILL from Jest to its worker, a crash. A tiny shell process of its own
 * session (a Ctrl-C to the terminal's process group does not reach it) holds the read end of a
 * pipe whose write end only the owner has; when the owner is gone the kernel closes that end, the
 * shell reads end-of-file, kills every process carrying the node's marker (launcher, VM, helpers;
 * never epmd) and removes the node's data.
 *
 * Why not `process.on('exit' | 'SIGINT')` in the owner: inside Jest a test file's `process` is a
 * copy of the real one (jest-util createProcessObject; jest-runtime hands the copy to
 * `require('process')` and `process.getBuiltinModule`), whose listeners never hear the real
 * process's signals or exit; and a SIGKILL runs no handler at all.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { NODE_MARKER_VARIABLE, type ClusterNode } from './layout';

/**
 * $1: the marker line (`AMQP_BENCH_CLUSTER_NODE=<node>`), $2: the node's data folder (kept in
 * variables: inside a shell function $1 is the function's). One grep reads every process's
 * environment; two passes: a process forked while the first ran (a launcher starting the VM) is
 * caught by the second.
 */
const REAPER_SCRIPT = `
marker=$1
data=$2
trap '' INT HUP
while read -r _; do :; done
reap() {
  for environ in $(grep -lszxF -- "$marker" /proc/[0-9]*/environ); do
    pid=\${environ#/proc/}; pid=\${pid%/environ}
    [ "$pid" = "$$" ] && continue
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = epmd ] && continue
    kill -KILL "$pid" 2>/dev/null
  done
}
reap
sleep 1
reap
rm -rf -- "$data"
`;

export interface SoloReaper {
  /** The watch's pid (for a test that checks it is gone). */
  readonly pid: number | undefined;
  /** The owner is done with the node (stopped it): the watch checks once more and ends. Safe twice. */
  release(): void;
}

/** Starts the watch for `node`; it outlives this process only long enough to end the node. */
export function startReaper(node: Pick<ClusterNode, 'name' | 'mnesiaBase'>): SoloReaper {
  const child = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'solo-node-reaper', `${NODE_MARKER_VARIABLE}=${node.name}`, node.mnesiaBase], {
    cwd: '/',
    // Not this process's environment: the watch must not carry a node's marker itself.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.on('error', () => undefined);
  const stdin = child.stdin as Socket | null;
  stdin?.on('error', () => undefined);
  // Neither the watch nor its pipe may keep this process alive.
  stdin?.unref();
  child.unref();
  return {
    pid: child.pid,
    release: () => {
      stdin?.end();
    },
  };
}
