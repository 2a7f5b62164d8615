/**
 * The gate on recorded runs: `bench report --threshold` as a subprocess over a reports folder
 * recorded from real quick runs of the throughput suite (tests/cli/fixtures/gate/shared-machine,
 * see its README): three runs of unchanged code on the shared 2-core machine (its load changing
 * between runs), then a fourth with one core kept busy by another process.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../results/helpers';

const execFileAsync = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');
const FIXTURE = path.resolve(__dirname, 'fixtures/gate/shared-machine');
/** The third run of unchanged code, and the run with one core kept busy. */
const THIRD_RUN = 'run_20261122_202144_592b0cd2';
const BUSY_CORE_RUN = 'run_20261122_202710_592b0cd2';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function report(dir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_REPORTS_DIR: dir, BENCH_RAW_DIR: path.join(dir, 'raw'), ...extraEnv };
  if (!('BENCH_MIN_EFFECTS' in extraEnv)) delete env.BENCH_MIN_EFFECTS;
  return execFileAsync('node', [BIN, 'report', '--output', dir, ...args], { env, timeout: 120_000, maxBuffer: 10_000_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('the --threshold gate on recorded runs', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('gate');
    fs.cpSync(FIXTURE, dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fails the run with one core kept busy (exit 1) and names the throughput metrics that dropped', async () => {
    const outcome = await report(dir, ['--threshold', '10']);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain(`archive     ${path.join(dir, `${BUSY_CORE_RUN}.json`)}`);
    expect(outcome.stdout).toContain(`compared    with ${THIRD_RUN}: 0 better, 6 worse, 39 ~, 0 not judged (38 judged, BH-corrected)`);
    expect(outcome.stdout).toContain('threshold   6 metric(s) judged worse by more than 10%:');
    // Three earlier runs of the same build: each minimum effect is learned from their noise. Recorded
    // before `mode` became `publish_mode`: read back in today's names, they still compare.
    expect(outcome.stdout).toContain(
      '✗ publish_throughput{message_size_bytes=256, messages_per_thread=100, publish_mode=plain, rounds=2, threads=10, worker_threads=4} Throughput (msg/s): −59.0% [−77.9%, −28.3%] (MW exact p=0.004, q=0.021; minimum ±41% (noise of 3 runs))',
    );
    expect(outcome.stdout).toMatch(/✗ publish_throughput\{[^}]*threads=10[^}]*\} Throughput \(MB\/s\): −59\.0%/);
    const markdown = fs.readFileSync(path.join(dir, 'LATEST_REPORT.md'), 'utf8');
    expect(markdown).toContain(
      '- ❌ publish_throughput{message_size_bytes=256, messages_per_thread=100, publish_mode=plain, rounds=2, threads=10, worker_threads=4} Throughput (msg/s): −59.0%',
    );
  }, 120_000);

  it('passes (exit 0) when nothing judged worse goes beyond the threshold or the minimum effect', async () => {
    // Third run against the second (unchanged code, the machine's load changing): one metric is
    // judged worse, by 56%. A gate at 60% passes; so does one at 10% with the minimum effects the
    // A/A check would advise for such a machine.
    const strict = await report(dir, ['--run', THIRD_RUN, '--threshold', '10']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('threshold   1 metric(s) judged worse by more than 10%:');
    expect(strict.stdout).toMatch(/✗ harness_overhead\{[^}]*\} Harness \(msg\/s\): −56\.3% \[−74\.4%, −25\.8%\]/);

    const lenient = await report(dir, ['--run', THIRD_RUN, '--threshold', '60']);
    expect({ code: lenient.code, stderr: lenient.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lenient.stdout).toContain('threshold   no metric judged worse by more than 60%');

    const wider = await report(dir, ['--run', THIRD_RUN, '--threshold', '10'], {
      BENCH_MIN_EFFECTS: '{"throughput": {"relative_percent": 60}}',
    });
    expect(wider.code).toBe(0);
    expect(wider.stdout).toContain('threshold   no metric judged worse by more than 10%');
  }, 120_000);
});
