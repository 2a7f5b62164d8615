/**
 * Findings are results, harness failures are failures, as a user sees them: `bench run` on one
 * small real benchmark (the real broker, the embedded proxy on free ports) with a deliberately
 * broken client. A client that leaves a rejection unhandled: exit 0, the finding in the raw result,
 * the summary and the report; the same with --fail-on-findings: exit 1, and the report says the
 * test failed on its findings, not the harness. A client that never connects (no thread can
 * start: the harness's failure): exit 1, ⚠ in the report, no verdict on the client.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RawResult } from '../../src/results/rawResult';
import { freePort } from '../support/ports';

const ROOT = path.resolve(__dirname, '../..');
const TEST = 'test_recovery_after_broker_close\\[10\\]';
const fixture = (file: string) => path.join(ROOT, 'tests/fixtures/adapters', file);

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly results: RawResult[];
  readonly report: string;
}

async function benchRun(extra: readonly string[]): Promise<Run> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-findings-'));
  try {
    const env = {
      ...process.env,
      BENCH_RAW_DIR: path.join(workDir, 'raw'),
      BENCH_REPORTS_DIR: path.join(workDir, 'reports'),
      TOXIPROXY_URL: `http://127.0.0.1:${await freePort()}`,
      BENCH_PROXY_LISTEN: `127.0.0.1:${await freePort()}`,
      BENCH_EMBEDDED_PROXY: 'auto',
    };
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(ROOT, 'bin/bench.js'), 'run', '-m', 'benchmark', '-t', TEST, '--replicates', '1', ...extra],
        { cwd: ROOT, env, timeout: 150_000, maxBuffer: 20 * 1024 * 1024 },
        (error, out, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    const raw = path.join(workDir, 'raw');
    const results = fs.existsSync(raw)
      ? fs
          .readdirSync(raw)
          .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
          .map((name) => JSON.parse(fs.readFileSync(path.join(raw, name), 'utf8')) as RawResult)
      : [];
    const reportFile = path.join(workDir, 'reports/LATEST_REPORT.md');
    return { code, stdout, stderr, results, report: fs.existsSync(reportFile) ? fs.readFileSync(reportFile, 'utf8') : '' };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

const explain = (run: Run) => `exit ${run.code}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`;

describe('bench run: findings are results, harness failures fail the run', () => {
  it('a client finding: exit 0, listed in the result, the summary and the report; with --fail-on-findings exit 1', async () => {
    const unhandled = `${fixture('leaves-rejection-unhandled.js')}:defaults`;
    const run = await benchRun(['--clients', unhandled]);
    expect({ code: run.code, why: run.code === 0 ? '' : explain(run) }).toEqual({ code: 0, why: '' });
    expect(run.results).toHaveLength(1);
    expect(run.results[0]!.harness_problems).toEqual([]);
    expect(run.results[0]!.findings).toEqual([
      expect.objectContaining({
        kind: 'unhandled_error',
        count: 10,
        evidence: [expect.stringMatching(/fixture: a rejection nobody handles \(×10\)$/)],
      }),
    ]);
    expect(run.stdout).toMatch(/^findings {4}1 \(fixture-leaves-rejection-unhandled \(defaults\) 1\)/m);
    expect(run.report).toMatch(
      /## Findings\n\n1 finding\(s\)[^\n]*\n\n### fixture-leaves-rejection-unhandled \(defaults\)\n\n- \*\*Broker closes the connection \(10 threads/,
    );
    expect(run.report).not.toContain('Harness failures');

    const failing = await benchRun(['--clients', unhandled, '--fail-on-findings']);
    expect({ code: failing.code, findings: failing.results[0]?.findings?.length }).toEqual({ code: 1, findings: 1 });
    expect(failing.report).toMatch(/this run was asked to fail on them: 1 test\(s\) failed so/);
    expect(failing.report).not.toContain('Harness failures');
  }, 320_000);

  it('a harness failure (no thread could start): exit 1, ⚠ in the report, no finding', async () => {
    const run = await benchRun(['--clients', `${fixture('never-connects.js')}:defaults`]);
    expect({ code: run.code, results: run.results.length }).toEqual({ code: 1, results: 0 });
    expect(run.report).toMatch(
      /## ⚠ Harness failures\n\n[^\n]*\n\n- \*\*TestRecoveryLatency › test_recovery_after_broker_close\[10\]\*\*: WorkerError: threads failed to connect through the proxy: thread \d+: fixture: this adapter never connects/,
    );
    expect(run.report).not.toContain('## Findings');
  }, 170_000);
});
