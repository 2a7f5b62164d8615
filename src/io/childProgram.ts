/**
 * A child program that speaks lines on its stdin / stdout: any executable (a Node.js script, a
 * Python or Go client, a shell script), started in a process group of its own so that stopping it
 * stops whatever it started too. Nothing it does can hang the caller: every wait is bounded, and
 * `stop` ends the whole group within its bound (end of stdin, then SIGTERM, then SIGKILL).
 *
 * Lifecycle: `startChildProgram` (spawned) -> `send` / `nextLine` -> `stop()` (safe twice). When
 * the program dies, a pending and every later `nextLine` fails with its last output (stderr, else
 * stdout), redacted. A process that exits while children of its group linger has them killed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';
import { BenchError } from '../errors';
import { redactText } from '../redact';

export interface ChildProgramOptions {
  /** Working folder. @default the process's */
  readonly cwd?: string;
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Called with every line instead of queueing it for `nextLine`. */
  readonly onLine?: (line: string) => void;
  /** Called once when the program exits (after the group was cleaned up), with how it ended. */
  readonly onExit?: (how: string) => void;
}

export interface ChildProgram {
  readonly pid: number | undefined;
  readonly exited: boolean;
  /** Writes one line to its stdin (dropped once it exited). */
  send(line: string): void;
  /** The next line of output. @throws BenchError when the program exits first or `boundMs` passes (`what` names the wait). */
  nextLine(what: string, boundMs: number): Promise<string>;
  /** The last lines it wrote (stderr, else stdout), redacted and on one line: what a report of its failure quotes. */
  lastOutput(): string;
  /** The error for a program that exited, with its last output. */
  died(): BenchError;
  /**
   * Ends it: end of stdin (a program of the line protocol exits then), then after `graceMs` SIGTERM
   * to its group, then after 1 s SIGKILL to its group. Resolves once it exited. Safe twice.
   */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL to its whole group at once (a program that broke the protocol). */
  kill(): void;
}

/** Programs alive in this process (or thread): killed with their group if this process exits first. */
const LIVE = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

/** SIGKILL to the process group of `child` (its pid: spawned `detached`, it leads a group of its own). */
function killGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A detached group outlives this process unless killed: a harness that dies leaves no client program behind.
  process.once('exit', () => {
    for (const child of LIVE) killGroup(child, 'SIGKILL');
  });
}

/** How much of its output a program keeps for its failure report. */
const KEPT_OUTPUT_CHARS = 2000;

/**
 * Starts `command[0]` with the rest as arguments (no shell), in its own process group.
 * @throws BenchError (CONFIG_INVALID) when `command` is empty
 */
export function startChildProgram(name: string, command: readonly string[], options: ChildProgramOptions = {}): ChildProgram {
  const [executable, ...args] = command;
  if (executable === undefined || executable === '') throw new BenchError('CONFIG_INVALID', `${name}: no program to start`);
  installExitHook();
  const child = spawn(executable, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  LIVE.add(child);
  let stderr = '';
  let stdoutTail = '';
  let spawnError: Error | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-KEPT_OUTPUT_CHARS);
  });
  // stdin errors (EPIPE after the program died) surface through the exit instead.
  child.stdin.on('error', () => undefined);
  child.on('error', (error) => {
    spawnError = error;
  });
  const lines: string[] = [];
  let waiter: ((line: string | undefined) => void) | undefined;
  let exited = false;
  let how = '';
  child.once('exit', (code, signal) => {
    how = signal ? `killed by ${signal}` : `exit code ${code ?? '?'}`;
    // Whatever it started and left behind goes with it (and with them, the pipes they hold open).
    killGroup(child, 'SIGKILL');
    // A pipe held by a process outside its group would keep 'close' from coming.
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
    }, 1000).unref();
  });
  const exit = new Promise<void>((resolve) => {
    // After 'exit' (or a failed start): every line it wrote has been read by then.
    child.once('close', () => {
      exited = true;
      LIVE.delete(child);
      if (spawnError) how = `could not start (${spawnError.message})`;
      waiter?.(undefined);
      options.onExit?.(how);
      resolve();
    });
  });
  readline.createInterface({ input: child.stdout, terminal: false }).on('line', (line) => {
    stdoutTail = (stdoutTail + '\n' + line).slice(-KEPT_OUTPUT_CHARS);
    if (options.onLine) options.onLine(line);
    else if (waiter) waiter(line);
    else lines.push(line);
  });
  const lastOutput = (): string => {
    const text = stderr.trim() || stdoutTail.trim();
    const oneLine = redactText(text)
      .split(/\s*\n\s*/)
      .slice(-3)
      .join(' | ');
    return oneLine.length > 400 ? `…${oneLine.slice(-400)}` : oneLine;
  };
  const died = (): BenchError =>
    new BenchError('WORKER_FAILED', `${name} exited (${how || 'still running'}): ${lastOutput() || 'it printed nothing'}`);

  let stopping: Promise<void> | undefined;
  return {
    get pid() {
      return child.pid;
    },
    get exited() {
      return exited;
    },
    died,
    lastOutput,
    send(line) {
      if (!exited && child.stdin.writable) child.stdin.write(`${line}\n`);
    },
    nextLine(what, boundMs) {
      const queued = lines.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      if (exited) return Promise.reject(died());
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(new BenchError('TIMEOUT', `${name} did not ${what} within ${boundMs} ms (last output: ${lastOutput() || 'none'})`));
        }, boundMs);
        waiter = (line) => {
          clearTimeout(timer);
          waiter = undefined;
          if (line === undefined) reject(died());
          else resolve(line);
        };
      });
    },
    kill() {
      killGroup(child, 'SIGKILL');
    },
    stop(graceMs = 5000) {
      stopping ??= (async () => {
        child.stdin.end();
        if (await exitedWithin(exit, graceMs)) return;
        killGroup(child, 'SIGTERM');
        if (await exitedWithin(exit, 1000)) return;
        killGroup(child, 'SIGKILL');
        await exit;
      })();
      return stopping;
    },
  };
}

/** True when `exit` settles within `boundMs`. */
async function exitedWithin(exit: Promise<void>, boundMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    exit.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), boundMs))),
  ]);
  clearTimeout(timer);
  return inTime;
}
