/**
 * The benchmark reporter, complete on a plain `jest` run of the benchmark
 * project (no run script): outcome, junit.xml, archive, history and report.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RunArchive } from '../../src/results/archive';
import { tempDir } from '../results/helpers';
import { seedPriorRun, snapshotTree } from '../support/reportsFolder';

const execFileAsync = promisify(execFile);
const FAKE_CONFIG = path.resolve(__dirname, 'fixtures/fake-bench/jest.config.js');

describe('benchmark reporter', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('reporter');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('on a plain `jest --selectProjects benchmark` run writes junit.xml, the archive, the history and the report', async () => {
    const out = path.join(root, 'out');
    const { stderr } = await execFileAsync(
      'node',
      [require.resolve('jest/bin/jest'), '--config', FAKE_CONFIG, '--selectProjects', 'benchmark', '-t', 'test_publish'],
      {
        cwd: path.resolve(__dirname, '../..'),
        env: { ...process.env, BENCH_RAW_DIR: path.join(root, 'raw'), BENCH_REPORTS_DIR: out, BENCH_PIPELINE_OWNER: '' },
        timeout: 60_000,
      },
    );
    expect(stderr).toMatch(
      /\[bench\] ✓ TestPipelineSmoke test_publish_throughput\[10\] · [\d.]+ s · publish_throughput: Throughput \(msg\/s\) 1,001 msg\/s/,
    );
    expect(stderr).toContain('[bench] archived 1 result(s) in');
    const files = fs.readdirSync(out).sort();
    expect(files).toEqual(
      expect.arrayContaining(['LATEST_REPORT.md', 'benchmark_history.json', 'junit.xml', 'chart-throughput-by-threads.svg']),
    );
    const archive = JSON.parse(
      fs.readFileSync(
        path.join(
          out,
          files.find((name) => name.startsWith('run_'))!,
        ),
        'utf8',
      ),
    ) as RunArchive;
    expect(archive).toMatchObject({
      invoked_by: 'jest-reporter',
      status: 'passed',
      test_name_filter: 'test_publish',
      counts: { passed: 1, skipped: 3 },
    });
    expect(fs.readFileSync(path.join(out, 'junit.xml'), 'utf8')).toContain('<property name="throughput_msgs_per_sec" value="1001 msg/s"/>');
  }, 60_000);

  it('on a plain run that executed no test: fails the run, says so in one line, and writes nothing', async () => {
    const folders = seedPriorRun(root);
    fs.rmSync(path.join(folders.rawResultsDir, '.jest-outcome.json'));
    const reportsBefore = snapshotTree(folders.reportsDir);
    const rawBefore = snapshotTree(folders.rawResultsDir);
    const result = await execFileAsync(
      'node',
      [require.resolve('jest/bin/jest'), '--config', FAKE_CONFIG, '--selectProjects', 'benchmark', '-t', 'no_such_test'],
      {
        cwd: path.resolve(__dirname, '../..'),
        env: { ...process.env, BENCH_RAW_DIR: folders.rawResultsDir, BENCH_REPORTS_DIR: folders.reportsDir, BENCH_PIPELINE_OWNER: '' },
        timeout: 60_000,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '[bench] no benchmark ran: the selection (BENCH_MARKERS, -t) matched no test (skipped: 4); nothing archived, junit.xml, the report, its charts and the history are unchanged\n',
    );
    expect(snapshotTree(folders.reportsDir)).toEqual(reportsBefore);
    // Only Jest's own bookkeeping (the test outcome) was written beside the raw results.
    expect(snapshotTree(folders.rawResultsDir)).toEqual({ ...rawBefore, '.jest-outcome.json': expect.any(String) });
  }, 60_000);
});
