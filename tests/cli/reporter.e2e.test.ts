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
});
