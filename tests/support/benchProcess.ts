/**
 * `bench run` as a child process in its own process group, for tests that kill it the way a
 * cancelled CI job does (SIGKILL to the whole group: the CLI, Jest and its workers at once), at a
 * moment chosen by a seeded generator or by what appears on disk. Every wait is bounded; a group
 * is only called gone once no process of it is left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const BIN = path.resolve(__dirname, '../../bin/bench.js');

export interface BenchProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far, interleaved as they came. */
  output(): string;
  /** Resolves when the CLI process has exited: its exit code, or null when a signal ended it. */
  readonly exited: Promise<number | null>;
}

/** Starts `node bin/bench.js <args>` as the leader of a new process group. */
export function startBench(args: readonly string[], env: NodeJS.ProcessEnv): BenchProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

/**
 * SIGKILL to the whole group, then waits (bounded) until no process of it is left, so nothing of
 * the killed run can still write when the test looks at the disk.
 */
export async function killGroup(run: BenchProcess, boundMs = 10_000): Promise<void> {
  const group = run.child.pid!;
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await run.exited;
  const deadline = Date.now() + boundMs;
  while (groupAlive(group)) {
    if (Date.now() > deadline) throw new Error(`process group ${group} still has processes ${boundMs} ms after SIGKILL`);
    await sleep(5);
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/** The CLI's exit code once it has exited, or `still running` when `boundMs` passed first (the timer cleared either way). */
export async function exitedWithin(run: BenchProcess, boundMs: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), boundMs)));
  try {
    return await Promise.race([run.exited, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until `run`'s output matches `pattern`; false if it exited first or the bound passed. */
export async function waitForOutput(run: BenchProcess, pattern: RegExp, boundMs: number): Promise<boolean> {
  return waitUntil(run, () => pattern.test(run.output()), boundMs);
}

/**
 * Waits until an entry whose name matches `pattern` appears in `dir` (inotify through fs.watch,
 * so a temp file that lives for a millisecond is seen); false if the run exited first or the bound passed.
 */
export function waitForEntry(run: BenchProcess, dir: string, pattern: RegExp, boundMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (seen: boolean) => {
      if (settled) return;
      settled = true;
      watcher.close();
      clearTimeout(timer);
      resolve(seen);
    };
    const watcher = fs.watch(dir, (_event, name) => {
      if (name && pattern.test(name.toString())) finish(true);
    });
    const timer = setTimeout(() => finish(false), boundMs);
    void run.exited.then(() => finish(false));
  });
}

async function waitUntil(run: BenchProcess, done: () => boolean, boundMs: number): Promise<boolean> {
  let exited = false;
  void run.exited.then(() => (exited = true));
  const deadline = Date.now() + boundMs;
  while (!done()) {
    if (exited || Date.now() > deadline) return done();
    await sleep(2);
  }
  return true;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A small seeded generator (mulberry32): the same seed, the same kill moments. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
