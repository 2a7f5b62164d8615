/**
 * The two sides of a paired run: each a `bench run` of its own build (its own harness, client
 * and benchmarks, from its own folder), into folders of its own, its output in a log file, taking
 * turns through the coordinator (BENCH_AB_TURNS). With the embedded fault proxy each side starts
 * its own, on ports of its own, so each measures its own build's proxy too; a Toxiproxy that
 * already answers is shared, one side at a time.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BenchError } from '../errors';
import type { Side } from './turnSchedule';

/** The harness a build's project runs (its own amqp-bench). */
export interface Harness {
  /** The CLI script (`bin/bench.js` of amqp-bench itself, `bin/amqp-bench.js` of an installed copy). */
  readonly bin: string;
  readonly version: string;
  /** It asks for turns (it has `bench ab`'s side of them); an older one cannot take part. */
  readonly takesTurns: boolean;
}

/**
 * The harness of the project in `projectDir`: amqp-bench itself, or the copy installed there.
 * @throws BenchError when the project has none installed
 */
export function harnessOf(projectDir: string, label: string): Harness {
  const own = readPackage(path.join(projectDir, 'package.json'));
  let root = projectDir;
  let bin = path.join(projectDir, 'bin', 'bench.js');
  if (own?.name !== 'amqp-bench') {
    try {
      root = path.dirname(require.resolve('amqp-bench/package.json', { paths: [projectDir] }));
    } catch {
      throw new BenchError(
        'BUILD_FAILED',
        `${label}: no amqp-bench is installed in ${projectDir}; add it to the project (npm install --save-dev amqp-bench) at that commit`,
      );
    }
    bin = path.join(root, 'bin', 'amqp-bench.js');
  }
  return {
    bin,
    version: readPackage(path.join(root, 'package.json'))?.version ?? 'unknown',
    takesTurns: fs.existsSync(path.join(root, 'src', 'ab', 'turnClient.ts')),
  };
}

function readPackage(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}

/** A free TCP port on the loopback (for a side's own fault proxy). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface SideLaunch {
  readonly side: Side;
  readonly projectDir: string;
  readonly harness: Harness;
  /** Options of `bench run` (selection, clients, replicates). */
  readonly runArgs: readonly string[];
  /** The side's folder: reports/, raw/ and its log go there. */
  readonly folder: string;
  /** Environment added for this side (the coordinator's socket, its proxy's ports). */
  readonly env: Readonly<Record<string, string>>;
}

export interface SideExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface RunningSide {
  readonly launch: SideLaunch;
  readonly logPath: string;
  readonly exited: Promise<SideExit>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts one side; its output goes to `<folder>/side.log`. */
export function startSide(launch: SideLaunch): RunningSide {
  fs.mkdirSync(launch.folder, { recursive: true });
  const logPath = path.join(launch.folder, 'side.log');
  const output = fs.openSync(logPath, 'w');
  const args = [launch.harness.bin, 'run', ...launch.runArgs, '--output', path.join(launch.folder, 'reports')];
  const child = spawn(process.execPath, args, {
    cwd: launch.projectDir,
    env: { ...process.env, BENCH_RAW_DIR: path.join(launch.folder, 'raw'), ...launch.env },
    stdio: ['ignore', output, output],
  });
  const exited = new Promise<SideExit>((resolve) => {
    child.once('error', (error) => {
      fs.appendFileSync(logPath, `bench ab: could not start this side: ${error.message}\n`);
      resolve({ exitCode: null, signal: null });
    });
    child.once('exit', (exitCode, signal) => resolve({ exitCode, signal }));
  }).finally(() => fs.closeSync(output));
  return { launch, logPath, exited, kill: (signal) => void child.kill(signal) };
}

/** The last lines of a side's log, for an error that points at it. */
export function logTail(logPath: string, lines = 8): string {
  try {
    return fs.readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
