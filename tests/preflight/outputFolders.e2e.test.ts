/**
 * An output folder the run could not write to the end is refused by `bench run`'s
 * preflight, before anything runs or is touched, without waiting on the disk (bounded), in one line naming the folder and
 * the setting that chose it: a read-only mount, a full disk, a file system with too little room,
 * a read-only history file, a folder that cannot be created although its parent looks writable.
 * Real file systems: small tmpfs mounts and a read-only bind mount (root only; the mounts' tests
 * are skipped, saying why, where mounting is not permitted). Every mount is undone in afterAll.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedPriorRun, snapshotTree, type SeededFolders } from '../support/reportsFolder';
import { watchRunQueueWait } from '../support/runQueueWait';

const ROOT = path.resolve(__dirname, '../..');
const FAKE_CONFIG = path.resolve(__dirname, '../cli/fixtures/fake-bench/jest.config.js');
/**
 * A refusal that does not wait on the disk: a bound against a hang or a retry loop, not a speed
 * goal (its own time is printed; here 1.5-2.6 s, most of it starting Node and the CLI on two
 * shared cores, so a 2 s bound failed under a full test run).
 */
const BOUND_MS = 10_000;

/** Why mounts cannot be made here, or undefined when they can (tried once, undone at once). */
function mountProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe', timeout: 5000 });
    execFileSync('umount', [probe], { stdio: 'pipe', timeout: 5000 });
    return undefined;
  } catch (error) {
    return `mount not permitted here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

interface Refusal {
  readonly code: number | null;
  readonly ownMs: number;
  readonly lines: readonly string[];
}

function benchRun(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Refusal> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'bin/bench.js'), 'run', '--jest-config', FAKE_CONFIG, '--no-broker', ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? null) : 0,
          // Its own time: wall time less the time it waited for a CPU other processes held.
          ownMs: Math.round(Date.now() - startedAt - watch.stop()),
          lines: `${stdout}${stderr}`.split('\n').filter((line) => line.trim() !== ''),
        }),
    );
    const watch = watchRunQueueWait(child.pid);
  });
}

const problem = mountProblem();
const withMounts = problem ? describe.skip : describe;

withMounts(`output folders on real file systems, refused in the preflight${problem ? ` (skipped: ${problem})` : ''}`, () => {
  let root: string;
  let folders: SeededFolders;
  const mounts: string[] = [];
  const mount = (args: readonly string[], target: string) => {
    if (!fs.existsSync(target)) fs.mkdirSync(target, { recursive: true });
    execFileSync('mount', [...args, target], { stdio: 'pipe', timeout: 5000 });
    mounts.push(target);
  };
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mounts-'));
    folders = seedPriorRun(root);
    mount(['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs'], path.join(root, 'readonly'));
    mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs'], path.join(root, 'small'));
    mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs'], path.join(root, 'full'));
    // Fill it: a write of 64 KiB and more fails at the limit, leaving the file system full.
    try {
      fs.writeFileSync(path.join(root, 'full', 'filler'), Buffer.alloc(128 * 1024));
    } catch {
      // ENOSPC: as intended.
    }
    // The history alone read-only: the folder around it stays writable.
    const history = path.join(folders.reportsDir, 'benchmark_history.json');
    mount(['--bind', history], history);
    execFileSync('mount', ['-o', 'remount,ro,bind', history], { stdio: 'pipe', timeout: 5000 });
  });
  afterAll(() => {
    for (const target of mounts.splice(0).reverse()) {
      try {
        execFileSync('umount', [target], { stdio: 'pipe', timeout: 5000 });
      } catch {
        execFileSync('umount', ['-l', target], { stdio: 'pipe', timeout: 5000 });
      }
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  const cases: readonly [string, () => { args?: string[]; env?: NodeJS.ProcessEnv }, () => string][] = [
    [
      'a reports folder on a read-only mount (-o)',
      () => ({ args: ['-o', path.join(root, 'readonly', 'reports')] }),
      () =>
        `-o/--output must be a folder this user can write (${root}/readonly is on a read-only file system (EROFS)); got "${root}/readonly/reports"`,
    ],
    [
      'a raw-results folder on a full disk',
      () => ({ env: { BENCH_RAW_DIR: path.join(root, 'full', 'raw') } }),
      () =>
        `BENCH_RAW_DIR must be a folder this user can write (no room left on the file system of ${root}/full (ENOSPC)); got "${root}/full/raw"`,
    ],
    [
      'a reports folder on a file system with less room than a run needs',
      () => ({ env: { BENCH_REPORTS_DIR: path.join(root, 'small') } }),
      () =>
        `BENCH_REPORTS_DIR must be a folder this user can write (${root}/small has 64 KiB free on its file system; a run needs at least 16 MiB); got "${root}/small"`,
    ],
    [
      'a read-only history in a writable reports folder',
      () => ({}),
      () =>
        `BENCH_REPORTS_DIR must be a folder this user can write (${folders.reportsDir}/benchmark_history.json is on a read-only file system (EROFS)); got "${folders.reportsDir}"`,
    ],
    [
      'a reports folder under /proc (its parent looks writable to root; nothing can be created there)',
      () => ({ args: ['-o', '/proc/amqp-bench-reports'] }),
      () => '-o/--output must be a folder this user can write (nothing can be created in /proc: ENOENT); got "/proc/amqp-bench-reports"',
    ],
  ];

  it.each(cases)(
    '%s: refused without waiting on the disk, in one line, nothing touched',
    async (name, setUp, line) => {
      const { args = [], env = {} } = setUp();
      const before = snapshotTree(root);
      const refusal = await benchRun(args, { BENCH_RAW_DIR: folders.rawResultsDir, BENCH_REPORTS_DIR: folders.reportsDir, ...env });
      expect(refusal.code).toBe(2);
      expect(refusal.lines).toEqual([`bench: ${line()}`]);
      expect(refusal.ownMs < BOUND_MS ? 'within the bound' : `${refusal.ownMs} ms`).toBe('within the bound');
      expect(snapshotTree(root)).toEqual(before);
      process.stdout.write(`preflight refusal: ${name}: ${refusal.ownMs} ms\n`);
    },
    30_000,
  );
});
