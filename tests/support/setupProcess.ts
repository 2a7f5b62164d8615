/**
 * The benchmark project's globalSetup and globalTeardown (fixtures/), run in a process of their
 * own as Jest's parent runs them: what two runs on one machine do to each other's fault proxy is
 * seen through two of these. Every wait is bounded; `kill()` is safe at any time.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunProxyEnv } from '../../src/faults/runProxy';

const ROOT = path.resolve(__dirname, '../..');

const SCRIPT = `
require('esbuild-register/dist/node').register();
const setUp = require(${JSON.stringify(path.join(ROOT, 'fixtures/globalSetup.ts'))}).default;
const tearDown = require(${JSON.stringify(path.join(ROOT, 'fixtures/globalTeardown.ts'))}).default;
const pick = ['TOXIPROXY_URL', 'BENCH_PROXY_NAME', 'BENCH_PROXY_LISTEN'];
setUp().then(
  () => process.stdout.write('set up ' + JSON.stringify(Object.fromEntries(pick.map((name) => [name, process.env[name]]))) + '\\n'),
  (error) => { process.stderr.write(String(error && error.stack) + '\\n'); process.exit(3); },
);
process.stdin.once('data', () => tearDown().then(() => process.exit(0), () => process.exit(4)));
`;

export interface SetupProcess {
  readonly pid: number;
  /** What globalSetup left in the environment for Jest's workers. */
  readonly env: RunProxyEnv;
  /** stderr so far (globalSetup's lines). */
  stderr(): string;
  /** Runs globalTeardown; resolves with the exit code (0: it finished). @throws when it does not end within the bound */
  tearDown(boundMs?: number): Promise<number | null>;
  /** Ends the process if it still runs and removes its folders; safe to call twice. */
  kill(): void;
}

/**
 * Starts a process that runs globalSetup with `env` over a clean environment (no TOXIPROXY_URL or
 * BENCH_* of the caller's: CI's point at its Docker Toxiproxy) and resolves once it has set up.
 */
export async function startSetupProcess(env: Record<string, string>, boundMs = 40_000): Promise<SetupProcess> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-setup-'));
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BENCH_') && name !== 'TOXIPROXY_URL'));
  const child = spawn(process.execPath, ['-e', SCRIPT], {
    cwd: ROOT,
    env: { ...base, BENCH_RAW_DIR: path.join(folder, 'raw'), BENCH_REPORTS_DIR: path.join(folder, 'reports'), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(folder, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + boundMs;
    let found: RegExpExecArray | null;
    while (!(found = /^set up (.*)$/m.exec(stdout))) {
      if (child.exitCode !== null) throw new Error(`globalSetup exited ${child.exitCode}: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`globalSetup of pid ${child.pid} did not finish within ${boundMs} ms: ${stderr.trim()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const line = found[1]!;
    return {
      pid: child.pid!,
      env: JSON.parse(line) as RunProxyEnv,
      stderr: () => stderr,
      tearDown: (teardownBoundMs = 20_000) => {
        child.stdin.write('teardown\n');
        return within(teardownBoundMs, `globalTeardown of pid ${child.pid}`, exited);
      },
      kill,
    };
  } catch (error) {
    kill();
    throw error;
  }
}

function within<T>(boundMs: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no end within ${boundMs} ms`)), boundMs))),
  ]).finally(() => clearTimeout(timer));
}

/** Polls `check` every 100 ms until it holds or `boundMs` passes; resolves with its last answer. */
export async function eventually(check: () => Promise<boolean>, boundMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
