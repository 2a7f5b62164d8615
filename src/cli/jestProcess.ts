/**
 * Runs Jest's benchmark project as a child process, its output going straight to the terminal.
 * Ctrl-C (SIGINT) and SIGTERM are forwarded to Jest; if Jest has not stopped after a grace
 * period it is killed, and the caller still archives whatever was produced.
 */
import { spawn } from 'node:child_process';

export interface JestRunOptions {
  /** Extra arguments after `--selectProjects <project>`. */
  readonly args: readonly string[];
  readonly project: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** How long Jest may take to stop after a forwarded signal. @default 15000 */
  readonly graceMs?: number;
  /** Told when a signal arrives (to print what happens next). */
  readonly onSignal?: (signal: NodeJS.Signals) => void;
}

export interface JestRunOutcome {
  /** Jest's exit code; null when it ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** A SIGINT/SIGTERM reached us while Jest ran. */
  readonly interrupted: boolean;
}

/** The Jest CLI of this project's own dependency, whatever the working directory. */
export function jestBinPath(): string {
  return require.resolve('jest/bin/jest');
}

export function jestArguments(options: Pick<JestRunOptions, 'args' | 'project'>): string[] {
  return [jestBinPath(), '--selectProjects', options.project, ...options.args];
}

export function runJest(options: JestRunOptions): Promise<JestRunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, jestArguments(options), { cwd: options.cwd, env: options.env, stdio: 'inherit' });
    let interrupted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const forward = (signal: NodeJS.Signals) => {
      options.onSignal?.(signal);
      if (interrupted) {
        // Asked twice: stop waiting for a graceful end.
        child.kill('SIGKILL');
        return;
      }
      interrupted = true;
      child.kill(signal);
      killTimer = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? 15_000);
      killTimer.unref();
    };
    const onSigint = () => forward('SIGINT');
    const onSigterm = () => forward('SIGTERM');
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
    const cleanup = () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      if (killTimer) clearTimeout(killTimer);
    };
    child.once('error', (error) => {
      cleanup();
      reject(error);
    });
    child.once('exit', (code, signal) => {
      cleanup();
      resolve({ exitCode: code, signal, interrupted: interrupted || signal === 'SIGINT' || signal === 'SIGTERM' });
    });
  });
}
