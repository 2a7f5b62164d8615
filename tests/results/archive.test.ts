import fs from 'node:fs';
import path from 'node:path';
import { listRunArchives, readRunArchive, writeRunArchive, buildRunArchive } from '../../src/results/archive';
import { clearRawResults, collectRawResults } from '../../src/results/collect';
import { extractKeyMetrics } from '../../src/results/keyMetrics';
import { appendOutcome, OUTCOME_FILE_NAME, writeOutcome, type JestOutcome } from '../../src/results/outcome';
import { finalizeRun } from '../../src/run/pipeline';
import { writeRawResult } from '../../src/results/rawResult';
import { expectValid } from './schemaValidator';
import { environment, publishResult, rawResult, realisticResults, recoveryResult, tempDir } from './helpers';

const failedOutcome: JestOutcome = {
  schema_version: 1,
  started_at: '2025-01-31T12:00:00.000Z',
  updated_at: '2025-01-31T12:04:00.000Z',
  complete: true,
  tests: [
    {
      test_id: 'benchmarks/bench_throughput.bench.ts::TestThroughput::test_publish_throughput[10-100-plain]',
      full_name: 'TestThroughput test_publish_throughput[10-100-plain]',
      status: 'passed',
      duration_ms: 4000,
      failure_message: null,
    },
    {
      test_id: 'benchmarks/bench_recovery_latency.bench.ts::TestRecoveryLatency::test_recovery_after_reset_peer[10]',
      full_name: 'TestRecoveryLatency test_recovery_after_reset_peer[10]',
      status: 'failed',
      duration_ms: 9000,
      failure_message: 'expect(received).toBe(expected)\nthreads_recovered 9 != 10 at amqp://guest:hunter22@127.0.0.1:25672',
    },
    {
      test_id: 'benchmarks/bench_recovery_latency.bench.ts::TestRecoveryLatency::test_recovery_after_reset_peer[50]',
      full_name: 'TestRecoveryLatency test_recovery_after_reset_peer[50]',
      status: 'skipped',
      duration_ms: null,
      failure_message: null,
    },
  ],
  suite_errors: [{ file: 'benchmarks/bench_race_conditions.bench.ts', message: 'Cannot find module x' }],
};

describe('collecting raw results', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('collect');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads every raw result, reports (not drops) the unreadable ones, ignores temp and dot files', () => {
    writeRawResult(publishResult(10, 'plain', 50_000), dir);
    writeRawResult(recoveryResult('recovery_after_reset_peer', 10, 'manual', 2, 400), dir);
    fs.writeFileSync(path.join(dir, 'broken_1.json'), '{"name": ');
    fs.writeFileSync(path.join(dir, 'wrong_1.json'), JSON.stringify({ ...publishResult(10, 'plain', 1), category: 'Speed!' }));
    fs.writeFileSync(path.join(dir, 'half.json.123.tmp'), '{');
    writeOutcome(dir, failedOutcome);
    const collected = collectRawResults(dir);
    expect(collected.results.map((result) => result.name).sort()).toEqual(['publish_throughput', 'recovery_after_reset_peer']);
    expect(collected.invalid).toEqual([
      { file: 'broken_1.json', error: expect.stringMatching(/^not valid JSON/) },
      {
        file: 'wrong_1.json',
        error: '/category must match pattern "^[a-z_]+$"',
      },
    ]);
  });

  it('deletes old results and our outcome files, nothing else', () => {
    writeRawResult(publishResult(10, 'plain', 50_000), dir);
    writeOutcome(dir, { ...failedOutcome, complete: false });
    appendOutcome(dir, { ...failedOutcome, complete: false });
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'x');
    expect(clearRawResults(dir)).toBe(3);
    expect(fs.readdirSync(dir)).toEqual(['keep.txt']);
    expect(clearRawResults(path.join(dir, 'missing'))).toBe(0);
  });
});

describe('key metrics', () => {
  it('picks peak throughput and every recovery figure, each against its target', () => {
    const metrics = extractKeyMetrics(realisticResults());
    const byId = (id: string) => metrics.filter((metric) => metric.id === id);
    expect(byId('peak_publish_throughput')).toMatchObject([
      { value: 61_000, parameters: { threads: 100, publish_mode: 'plain' }, target: null, met: null },
    ]);
    expect(byId('rst_detection').map((metric) => [metric.parameters.threads, metric.value, metric.met])).toEqual([
      [10, 2.1, true],
      [50, 6.5, true],
    ]);
    expect(byId('partition_detection')).toMatchObject([{ value: 118, target: { comparator: '<', threshold: 200, unit: 'ms' }, met: true }]);
    expect(byId('full_recovery')).toHaveLength(4);
  });

  it('uses the target a result declares over the default target, and misses show', () => {
    const strict = { ...recoveryResult('recovery_after_reset_peer', 10, 'manual', 12, 400) };
    const declared = {
      ...strict,
      targets: [{ metric: 'error_detection_latency_ms', comparator: '<' as const, threshold: 15, unit: 'ms', met: true }],
    };
    // One measurement beyond the default target is inconclusive: a miss needs an interval of repetitions beyond it.
    expect(extractKeyMetrics([strict]).find((metric) => metric.id === 'rst_detection')).toMatchObject({
      met: null,
      met_reason: expect.stringMatching(/^inconclusive: 12 ms \(one measurement\)/),
      target: { threshold: 10 },
    });
    const replicated = { ...strict, replicates: { error_detection_latency_ms: [12, 11, 14, 12, 13] as [number, ...number[]] } };
    expect(extractKeyMetrics([replicated]).find((metric) => metric.id === 'rst_detection')).toMatchObject({ met: false });
    expect(extractKeyMetrics([declared]).find((metric) => metric.id === 'rst_detection')).toMatchObject({
      met: true,
      target: { threshold: 15 },
    });
  });
});

describe('run archive', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('archive');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const input = {
    environment: environment(),
    startedAt: new Date('2025-01-31T12:00:00.500Z'),
    finishedAt: new Date('2025-01-31T12:04:00.500Z'),
    markerExpression: 'benchmark and not slow and not stress',
    testNameFilter: 'test_recovery',
    invokedBy: 'cli' as const,
    jestExitCode: 1,
    interrupted: false,
    tests: failedOutcome.tests,
    suiteErrors: failedOutcome.suite_errors,
    results: realisticResults(),
    invalidResultFiles: [],
    warnings: [],
  };

  it('names archives by UTC start and fingerprint, never overwriting one', () => {
    const first = writeRunArchive(buildRunArchive(input), dir);
    const second = writeRunArchive(buildRunArchive(input), dir);
    expect(path.basename(first.filePath)).toBe('run_20250131_120000_abcd1234.json');
    expect(path.basename(second.filePath)).toBe('run_20250131_120000_abcd1234_2.json');
    expect(second.archive.run_id).toBe('run_20250131_120000_abcd1234_2');
    expect(listRunArchives(dir).map((file) => path.basename(file))).toEqual([
      'run_20250131_120000_abcd1234.json',
      'run_20250131_120000_abcd1234_2.json',
    ]);
    expect(readRunArchive(first.filePath).run_id).toBe('run_20250131_120000_abcd1234');
  });

  it('gives two runs that archive into different folders but claim their ids in one place two ids (bench ab, same build on both sides)', () => {
    const claims = path.join(dir, 'claims');
    const a = writeRunArchive(buildRunArchive(input), path.join(dir, 'A'), [], claims);
    const b = writeRunArchive(buildRunArchive(input), path.join(dir, 'B'), [], claims);
    expect([a.archive.run_id, b.archive.run_id]).toEqual(['run_20250131_120000_abcd1234', 'run_20250131_120000_abcd1234_2']);
    expect(path.basename(b.filePath)).toBe('run_20250131_120000_abcd1234_2.json');
    // Each claim names where its archive went.
    expect(fs.readFileSync(path.join(claims, 'run_20250131_120000_abcd1234_2'), 'utf8')).toBe(`${path.join(dir, 'B')}\n`);
    // Without the shared claims, each folder's own first name: the same id twice.
    expect(writeRunArchive(buildRunArchive(input), path.join(dir, 'C')).archive.run_id).toBe('run_20250131_120000_abcd1234');
  });

  it('archives a failed run with its counts, failures and filters, valid against the schema', () => {
    const { archive, filePath } = writeRunArchive(buildRunArchive(input), dir, ['hunter22']);
    expect(archive).toMatchObject({
      status: 'failed',
      duration_ms: 240_000,
      marker_expression: 'benchmark and not slow and not stress',
      test_name_filter: 'test_recovery',
      counts: { passed: 1, failed: 1, skipped: 1, todo: 0, total: 3, failed_suites: 1 },
    });
    const text = fs.readFileSync(filePath, 'utf8');
    expect(text).not.toContain('hunter22');
    expect(text).toContain('amqp://guest@127.0.0.1:25672');
    expectValid('run-archive.schema.json', JSON.parse(text));
  });

  it('marks a run stopped by a signal as interrupted, and kept results of another fingerprint', () => {
    const archive = buildRunArchive({ ...input, interrupted: true, results: [rawResult({ name: 'old', fingerprint: 'ffff0000' })] });
    expect(archive.status).toBe('interrupted');
    expect(archive.warnings).toEqual([
      '1 raw result(s) carry another fingerprint than this run (abcd1234): ffff0000; kept from an earlier run?',
    ]);
  });
});

describe('finalizeRun (the pipeline on real files)', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('pipeline');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('archives a failed run with what it produced, appends to the history and reports, all valid against the schemas', async () => {
    const raw = path.join(root, 'raw');
    const out = path.join(root, 'out');
    for (const result of realisticResults()) writeRawResult(result, raw);
    writeOutcome(raw, failedOutcome);
    const warnings: string[] = [];
    const finalized = await finalizeRun({
      environment: environment(),
      startedAt: new Date('2025-01-31T12:00:00Z'),
      finishedAt: new Date('2025-01-31T12:04:00Z'),
      markerExpression: 'benchmark',
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: 1,
      interrupted: false,
      rawResultsDir: raw,
      reportsDir: out,
      thresholdPercent: null,
      secrets: ['hunter22'],
      warn: (message) => warnings.push(message),
    });
    expect(warnings).toEqual([]);
    expect(finalized.archive.status).toBe('failed');
    expect(finalized.archive.results).toHaveLength(realisticResults().length);
    expect(finalized.comparisonNote).toBe('First run in the history: nothing to compare with yet.');
    expect(fs.readdirSync(out).sort()).toEqual([
      'LATEST_REPORT.md',
      'benchmark_history.json',
      'chart-consumer-scalability.svg',
      // No history trend: a trend needs two runs, and this is the first.
      'chart-latency-percentiles.svg',
      'chart-recovery-by-scenario.svg',
      'chart-throughput-by-threads.svg',
      'run_20250131_120000_abcd1234.json',
    ]);
    expectValid('run-archive.schema.json', JSON.parse(fs.readFileSync(finalized.archivePath, 'utf8')));
    expectValid('benchmark-history.schema.json', JSON.parse(fs.readFileSync(finalized.historyPath, 'utf8')));
    for (const file of fs.readdirSync(raw).filter((name) => name.endsWith('.json') && !name.startsWith('.'))) {
      expectValid('raw-result.schema.json', JSON.parse(fs.readFileSync(path.join(raw, file), 'utf8')));
    }
    expectValid('jest-outcome.schema.json', JSON.parse(fs.readFileSync(path.join(raw, OUTCOME_FILE_NAME), 'utf8')));
    for (const file of fs.readdirSync(out)) expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain('hunter22');
  });

  it('archives even when Jest left no outcome (killed before any test ended) and says so', async () => {
    const warnings: string[] = [];
    const finalized = await finalizeRun({
      environment: environment(),
      startedAt: new Date('2025-01-31T12:00:00Z'),
      finishedAt: new Date('2025-01-31T12:00:05Z'),
      markerExpression: 'benchmark',
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: null,
      interrupted: true,
      rawResultsDir: path.join(root, 'raw'),
      reportsDir: path.join(root, 'out'),
      thresholdPercent: null,
      secrets: [],
      warn: (message) => warnings.push(message),
    });
    expect(finalized.archive).toMatchObject({ status: 'interrupted', results: [], counts: { total: 0 } });
    expect(warnings).toEqual(['Jest left no test outcome (it stopped before any test finished); the archive lists results only']);
    expect(fs.existsSync(finalized.archivePath)).toBe(true);
  });
});
