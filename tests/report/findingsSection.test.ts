import { buildRunArchive } from '../../src/results/archive';
import type { TestOutcome } from '../../src/results/outcome';
import type { RawResult } from '../../src/results/rawResult';
import { findingLines } from '../../src/cli/summary';
import { buildFindingsSection } from '../../src/report/findingsSection';
import { renderMarkdown } from '../../src/report/render';
import { buildReportView } from '../../src/report/view';
import { environment, rawResult } from '../results/helpers';

const client = (name: string, profile = 'defaults') => ({ client: name, client_profile: profile });

const unhandled = rawResult({
  name: 'realistic_recovery_correctness',
  category: 'resilience',
  test_id: 'benchmarks/bench_realistic.bench.ts::cloudamqp (defaults)::TestRealisticWorkloads::test_recovery_correctness_sequence_numbers',
  parameters: { ...client('cloudamqp'), messages: 4000 },
  findings: [
    {
      kind: 'unhandled_error',
      where: 'producer thread 1',
      text: '389 error(s) nobody handled inside the client',
      count: 389,
      evidence: ['unhandled rejection: write ECONNRESET (×389)'],
    },
  ],
  harness_problems: [],
});
const clean = rawResult({
  name: 'realistic_recovery_correctness',
  category: 'resilience',
  test_id: 'benchmarks/bench_realistic.bench.ts::amqplib (defaults)::TestRealisticWorkloads::test_recovery_correctness_sequence_numbers',
  parameters: { ...client('amqplib'), messages: 4000 },
  findings: [],
  harness_problems: [],
});
/** A fault-matrix cell keeps its verdict in its details: read as findings too. */
const matrixCell = rawResult({
  name: 'fault_matrix_broker_close',
  category: 'faults',
  test_id: 'benchmarks/bench_matrix.bench.ts::cloudamqp (defaults)::TestFaultMatrix::test_fault_broker_close',
  parameters: client('cloudamqp'),
  details: {
    kind: 'fault_matrix',
    verdict: { ok: false, cell: '❌ 2 publishes hung', findings: ['2 publish(es) hung: not settled 5 s after publishing stopped'] },
  },
});
const failed = (test_id: string, failure_message: string): TestOutcome => ({
  test_id,
  full_name: test_id,
  status: 'failed',
  duration_ms: 10,
  failure_message,
});

describe('the report’s Findings', () => {
  it('is left out when nothing went wrong', () => {
    expect(buildFindingsSection([clean], [])).toBeNull();
  });

  it('lists per client what it did wrong in each scenario, with the evidence, whichever suite found it', () => {
    const section = buildFindingsSection([clean, unhandled, matrixCell], [])!;
    expect(section.count).toBe(2);
    expect(section.clients.map((entry) => [entry.client, entry.count])).toEqual([['cloudamqp (defaults)', 2]]);
    expect(section.clients[0]!.results).toEqual([
      {
        scenario: 'Recovery correctness (4000 msgs)',
        items: [
          {
            text: 'producer thread 1: 389 error(s) nobody handled inside the client',
            // Where and what apart too (the clients table groups findings by them).
            where: 'producer thread 1',
            what: '389 error(s) nobody handled inside the client',
            evidence: ['unhandled rejection: write ECONNRESET (×389)'],
          },
        ],
      },
      {
        scenario: 'Broker closes the connection',
        items: [
          {
            text: '2 publish(es) hung: not settled 5 s after publishing stopped',
            where: null,
            what: '2 publish(es) hung: not settled 5 s after publishing stopped',
            evidence: [],
          },
        ],
      },
    ]);
    expect(section.harness_failures).toEqual([]);
  });

  it('tells a test that failed on its findings (asked to) from the harness’s failures, which are never a verdict', () => {
    const section = buildFindingsSection(
      [unhandled],
      [
        failed(unhandled.test_id, 'expect(received).toEqual(expected)'),
        failed(
          'benchmarks/bench_recovery.bench.ts::amqplib (defaults)::TestRecoveryLatency::test_recovery_after_reset_peer[10]',
          'WorkerError: threads failed to connect through the proxy: thread 0: ECONNREFUSED',
        ),
      ],
    )!;
    expect(section.failed_on_findings).toEqual([
      'cloudamqp (defaults) › TestRealisticWorkloads › test_recovery_correctness_sequence_numbers',
    ]);
    expect(section.harness_failures).toEqual([
      {
        test: 'amqplib (defaults) › TestRecoveryLatency › test_recovery_after_reset_peer[10]',
        reason: 'WorkerError: threads failed to connect through the proxy: thread 0: ECONNREFUSED',
      },
    ]);
  });

  it('a recorded result with harness problems is a harness failure with its own words', () => {
    const broken: RawResult = { ...clean, harness_problems: ['the reset cycles never ran'] };
    expect(buildFindingsSection([broken], [failed(clean.test_id, 'expect(received).toEqual(expected)')])!.harness_failures).toEqual([
      {
        test: 'amqplib (defaults) › TestRealisticWorkloads › test_recovery_correctness_sequence_numbers',
        reason: 'the reset cycles never ran',
      },
    ]);
  });

  it('is rendered after the key metrics: per client, each finding with its evidence, harness failures under ⚠', () => {
    const tests = [failed('benchmarks/bench_x.bench.ts::amqplib (defaults)::TestX::test_x', 'boom')];
    const archive = buildRunArchive({
      environment: environment(),
      startedAt: new Date('2025-01-31T12:00:00Z'),
      finishedAt: new Date('2025-01-31T12:00:10Z'),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'jest-reporter',
      jestExitCode: null,
      interrupted: false,
      tests,
      suiteErrors: [],
      results: [clean, unhandled],
      invalidResultFiles: [],
      warnings: [],
    });
    const markdown = renderMarkdown(
      buildReportView({
        archive,
        archiveFile: 'run.json',
        historyRuns: [],
        comparison: null,
        comparisonNote: null,
        thresholdPercent: null,
        regressions: [],
        charts: [],
        generatedAt: new Date('2025-01-31T12:01:00Z'),
        warnings: [],
      }),
    );
    const section = markdown.slice(
      markdown.indexOf('## Findings'),
      markdown.indexOf('\n## ', markdown.indexOf('## ⚠ Harness failures') + 1),
    );
    expect(section.split('\n').filter((line) => line.startsWith('#') || line.trimStart().startsWith('-'))).toEqual([
      '## Findings',
      '### cloudamqp (defaults)',
      '- **Recovery correctness (4000 msgs)**',
      '  - producer thread 1: 389 error(s) nobody handled inside the client',
      '    - unhandled rejection: write ECONNRESET (×389)',
      '## ⚠ Harness failures',
      '- **amqplib (defaults) › TestX › test_x**: boom',
    ]);
    expect(markdown.indexOf('## Findings')).toBeGreaterThan(markdown.indexOf('## Key metrics'));
  });
});

describe('the run summary’s findings line', () => {
  it('counts the findings per client, and says nothing when there are none', () => {
    const withClient = (result: RawResult, name: string): RawResult => ({
      ...result,
      client: { name, profile: 'defaults', library: name, version: '1', settings: {} },
    });
    expect(findingLines([withClient(clean, 'amqplib')])).toEqual([]);
    // One line: the total, then each client with findings and its count (amqplib had none: not named).
    const lines = findingLines([withClient(clean, 'amqplib'), withClient(unhandled, 'cloudamqp'), withClient(matrixCell, 'cloudamqp')]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^findings +2 \(cloudamqp \(defaults\) 2\)/);
    expect(lines[0]).not.toContain('amqplib');
  });
});
