/**
 * A reference script run as a child process that speaks JSON lines: we write commands to its
 * stdin, it answers one line per command on stdout. The bare reference scripts run this way in
 * `--serve` mode, so their timed runs can alternate with the harness's. Any executable can be
 * one (`command`: a Node.js script is `[process.execPath, script, ...args]`, a Python one
 * `[python, script, ...args]`); src/io/childProgram.ts runs it, in a process group of its own.
 *
 * Lifecycle: `startLineProcess` (spawned) -> `send` / `nextLine` -> `close()` (end of stdin; the
 * group killed if it does not exit within 5 s; safe twice). When the process dies, a pending and
 * every later `nextLine` fails with what it said on stderr (redacted).
 */
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';
import { startChildProgram } from '../io/childProgram';

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
  return startLineProgram(name, [process.execPath, script, ...args], env);
}

/** Starts any program (`command[0]`, no shell) in the project folder, with `env` added to this process's. */
export function startLineProgram(name: string, command: readonly string[], env: Readonly<Record<string, string>>): LineProcess {
  const child = startChildProgram(name, command, { cwd: PROJECT_ROOT, env });
  const died = (): BenchError => new BenchError('WORKER_FAILED', `${name} exited: ${child.lastOutput() || 'it printed nothing'}`);
  return {
    get exited() {
      return child.exited;
    },
    send: (line) => child.send(line),
    nextLine: (what, boundMs) =>
      child.nextLine(what, boundMs).catch((error: unknown) => {
        throw child.exited ? died() : error;
      }),
    died,
    close: () => child.stop(5000),
  };
}
