/**
 * The simplest engine: N agents as N Node.js processes on this machine (`bench load --agents N`),
 * each with its own connections, like N instances of an application. Each runs the same entry
 * point a pod or a CI job runs (`bench load FILE --agent I --agents N --run-id R`), its output in
 * a log file of its own. This module only starts them and watches them end: an agent that exits
 * without having delivered is known gone at once (with its exit code or signal), so the
 * coordinator need not wait out its bounds for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config';
import { sleep } from '../measure/clock';

export interface LocalAgentsOptions {
  readonly count: number;
  /** The `bench` command the agents run. @default load */
  readonly command?: string;
  /** The arguments of that command that every agent gets (the workload file, the run id, ...), before `--agent I`. */
  readonly args: (index: number) => readonly string[];
  /** Extra environment of agent `index` (its own proxy entry). */
  readonly env: (index: number) => Readonly<Record<string, string>>;
  /** Folder for agent-<index>.log. */
  readonly logDir: string;
  readonly log: (line: string) => void;
}

export interface LocalAgents {
  /** Agents that ended without it being normal (a non-zero exit, a signal), or that exited normally a while ago: with why. */
  gone(): ReadonlyMap<number, string>;
  readonly pids: readonly (number | undefined)[];
  /** Resolves when every agent has exited. */
  readonly exited: Promise<void>;
  /** Ends the agents still running (SIGTERM, then SIGKILL after `boundMs`); resolves when all have exited. */
  stop(boundMs?: number): Promise<void>;
}

/** An agent that exited normally and still delivered nothing this long after is gone (its result message may be in flight until then). */
const NORMAL_EXIT_GRACE_MS = 3000;

const BENCH = path.join(PROJECT_ROOT, 'bin', 'bench.js');

export function startLocalAgents(options: LocalAgentsOptions): LocalAgents {
  fs.mkdirSync(options.logDir, { recursive: true });
  const children: ChildProcess[] = [];
  const exits = new Map<number, { reason: string; atMs: number; normal: boolean }>();
  const exitedEach: Promise<void>[] = [];
  const startedAtMs = Date.now();
  /** Set by stop(): an exit after it is the one asked for, not news. */
  let stopping = false;
  for (let index = 0; index < options.count; index += 1) {
    const logFile = path.join(options.logDir, `agent-${index}.log`);
    const out = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, [BENCH, options.command ?? 'load', ...options.args(index)], {
      cwd: process.cwd(),
      env: { ...process.env, ...options.env(index) },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    children.push(child);
    exitedEach.push(
      new Promise<void>((resolve) => {
        const ended = (reason: string, normal: boolean) => {
          if (!exits.has(index)) exits.set(index, { reason, atMs: Date.now(), normal });
          resolve();
        };
        child.once('error', (error) => ended(`could not start: ${error.message}`, false));
        child.once('exit', (code, signal) => {
          const afterS = ((Date.now() - startedAtMs) / 1000).toFixed(1);
          ended(
            signal ? `exited with ${signal} ${afterS} s after it was started` : `exited with code ${code} ${afterS} s after it was started`,
            code === 0 && !signal,
          );
          if (!(code === 0 && !signal) && !stopping) options.log(`fleet: agent ${index} ${exits.get(index)!.reason} (its log: ${logFile})`);
        });
      }),
    );
  }
  const exited = Promise.all(exitedEach).then(() => undefined);
  return {
    pids: children.map((child) => child.pid),
    exited,
    gone() {
      const gone = new Map<number, string>();
      for (const [index, exit] of exits) if (!exit.normal || Date.now() - exit.atMs > NORMAL_EXIT_GRACE_MS) gone.set(index, exit.reason);
      return gone;
    },
    async stop(boundMs = 10_000) {
      stopping = true;
      for (const [index, child] of children.entries()) if (!exits.has(index)) child.kill('SIGTERM');
      const timedOut = await Promise.race([exited.then(() => false), sleep(boundMs).then(() => true)]);
      if (timedOut) for (const [index, child] of children.entries()) if (!exits.has(index)) child.kill('SIGKILL');
      await exited;
    },
  };
}
