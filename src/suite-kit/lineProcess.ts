/**
 * A Node.js script run as a child process that speaks JSON lines: we write commands to its
 * stdin, it answers one line per command on stdout. The bare reference scripts run this way in
 * `--serve` mode, so their timed runs can alternate with the harness's.
 *
 * Lifecycle: `startLineProcess` (spawned) -> `send` / `nextLine` -> `close()` (end of stdin; killed
 * if it does not exit within 5 s; safe twice). When the process dies, a pending and every later
 * `nextLine` fails with what it said on stderr (redacted).
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';
import { redactText } from '../redact';

export interface LineProcess {
  readonly exited: boolean;
  /** Writes one line to its stdin. */
  send(line: string): void;
  /** The next line of output. @throws BenchError when the process exits first or `boundMs` passes (`what` names the wait). */
  nextLine(what: string, boundMs: number): Promise<string>;
  /** The error for a process that exited, with its stderr. */
  died(): BenchError;
  close(): Promise<void>;
}

/** Starts `node <script> ...args` in the project folder, with `env` added to this process's. */
export function startLineProcess(
  name: string,
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): LineProcess {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  // stdin errors (EPIPE after the process died) surface through the exit instead.
  child.stdin.on('error', () => undefined);
  const lines: string[] = [];
  let waiter: ((line: string | undefined) => void) | undefined;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      waiter?.(undefined);
      resolve();
    });
  });
  readline.createInterface({ input: child.stdout, terminal: false }).on('line', (line) => {
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const died = (): BenchError =>
    new BenchError('WORKER_FAILED', `${name} exited: ${redactText(stderr.trim()) || `code ${child.exitCode ?? child.signalCode}`}`);

  let closing: Promise<void> | undefined;
  return {
    get exited() {
      return exited;
    },
    died,
    send(line) {
      child.stdin.write(`${line}\n`);
    },
    nextLine(what, boundMs) {
      const queued = lines.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      if (exited) return Promise.reject(died());
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(new BenchError('TIMEOUT', `${name} did not ${what} within ${boundMs} ms`));
        }, boundMs);
        waiter = (line) => {
          clearTimeout(timer);
          waiter = undefined;
          if (line === undefined) reject(died());
          else resolve(line);
        };
      });
    },
    close() {
      closing ??= (async () => {
        child.stdin.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exit, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
        clearTimeout(timer);
        if (!exited) {
          child.kill('SIGKILL');
          await exit;
        }
      })();
      return closing;
    },
  };
}
