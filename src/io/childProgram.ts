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
  return new RunningProgram(name, child, options);
}

class RunningProgram implements ChildProgram {
  exited = false;
  private stderr = '';
  private stdoutTail = '';
  private spawnError: Error | undefined;
  private how = '';
  private readonly lines: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private readonly exit: Promise<void>;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly options: ChildProgramOptions,
  ) {
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-KEPT_OUTPUT_CHARS);
    });
    // stdin errors (EPIPE after the program died) surface through the exit instead.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      this.spawnError = error;
    });
    child.once('exit', (code, signal) => this.onExit(code, signal));
    this.exit = new Promise<void>((resolve) => {
      // After 'exit' (or a failed start): every line it wrote has been read by then.
      child.once('close', () => {
        this.exited = true;
        LIVE.delete(child);
        if (this.spawnError) this.how = `could not start (${this.spawnError.message})`;
        this.waiter?.(undefined);
        options.onExit?.(this.how);
        resolve();
      });
    });
    readline.createInterface({ input: child.stdout, terminal: false }).on('line', (line) => this.onLine(line));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  lastOutput(): string {
    const text = this.stderr.trim() || this.stdoutTail.trim();
    const oneLine = redactText(text)
      .split(/\s*\n\s*/)
      .slice(-3)
      .join(' | ');
    return oneLine.length > 400 ? `…${oneLine.slice(-400)}` : oneLine;
  }

  died(): BenchError {
    return new BenchError(
      'WORKER_FAILED',
      `${this.name} exited (${this.how || 'still running'}): ${this.lastOutput() || 'it printed nothing'}`,
    );
  }

  send(line: string): void {
    if (!this.exited && this.child.stdin.writable) this.child.stdin.write(`${line}\n`);
  }

  nextLine(what: string, boundMs: number): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.exited) return Promise.reject(this.died());
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(
          new BenchError('TIMEOUT', `${this.name} did not ${what} within ${boundMs} ms (last output: ${this.lastOutput() || 'none'})`),
        );
      }, boundMs);
      this.waiter = (line) => {
        clearTimeout(timer);
        this.waiter = undefined;
        if (line === undefined) reject(this.died());
        else resolve(line);
      };
    });
  }

  kill(): void {
    killGroup(this.child, 'SIGKILL');
  }

  stop(graceMs = 5000): Promise<void> {
    this.stopping ??= (async () => {
      this.child.stdin.end();
      if (await exitedWithin(this.exit, graceMs)) return;
      killGroup(this.child, 'SIGTERM');
      if (await exitedWithin(this.exit, 1000)) return;
      killGroup(this.child, 'SIGKILL');
      await this.exit;
    })();
    return this.stopping;
  }

  private onLine(line: string): void {
    this.stdoutTail = (this.stdoutTail + '\n' + line).slice(-KEPT_OUTPUT_CHARS);
    if (this.options.onLine) this.options.onLine(line);
    else if (this.waiter) this.waiter(line);
    else this.lines.push(line);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    const { child } = this;
    this.how = signal ? `killed by ${signal}` : `exit code ${code ?? '?'}`;
    // Whatever it started and left behind goes with it (and with them, the pipes they hold open).
    killGroup(child, 'SIGKILL');
    // A pipe held by a process outside its group would keep 'close' from coming.
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
    }, 1000).unref();
  }
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
