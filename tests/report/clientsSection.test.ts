import { buildClientsSection } from '../../src/report/clientsSection';
import { rowVerdict } from '../../src/report/verdictText';
import type { TestOutcome } from '../../src/results/outcome';
import type { RawResult } from '../../src/results/rawResult';
import { publishResult } from '../results/helpers';
import { asClient, clientRun, metric, passed } from './builders';
import { recordedRun } from './recorded';
import { figuresOf } from './support/reading';

/** A client row's finding as what was found and the result it was found in: `lost 3 … (name (parameters))`. */
const foundIn = (finding: string): [string, string] => {
  const [, what, result] = /^(.*) \((\w+ \(.*\))\)$/.exec(finding)!;
  return [what!, result!];
};

describe('the clients side by side section', () => {
  it('is left out when the run measured one client configuration', () => {
    expect(buildClientsSection(recordedRun().results, recordedRun().tests)).toBeNull();
    expect(buildClientsSection(clientRun('amqplib', 'defaults'), [])).toBeNull();
  });

  it('has one row per configuration, in the registry order, each figure from the configuration every client ran', () => {
    const results = [
      ...clientRun('rabbitmq-client', 'normalised', 1.5),
      ...clientRun('amqplib', 'defaults'),
      ...clientRun('rabbitmq-client', 'defaults', 1.2),
      // Only amqplib ran 300 publishers: never set beside the others' 100.
      asClient('amqplib', 'defaults', publishResult(300, 'plain', 90_000)),
    ];
    const section = buildClientsSection(results, [])!;
    expect(section.rows.map((row) => row.client)).toEqual([
      'amqplib (defaults)',
      'rabbitmq-client (defaults)',
      'rabbitmq-client (normalised)',
    ]);
    const [amqplib, rabbitDefaults] = section.rows;
    // Rates at the most publishers and consumers all share (100, 10); confirm latency at the fewest (10).
    expect(amqplib!.figures).toMatchObject({
      publish_rate: '50,000 msg/s',
      consume_rate: '30,000 msg/s',
      confirm_p50: '0.45 ms',
      confirm_p99: '2.5 ms',
      harness_ratio: '97% ✅',
      rst_detection: '1.5 ms',
      partition_detection: '95 ms',
      rst_recovery_after_removal: '180 ms',
      messages_lost: '0',
      duplicates: '12',
    });
    expect(rabbitDefaults!.figures.publish_rate).toBe('60,000 msg/s');
    expect(section.notes[0]).toContain('plain, 256 B with threads=100');
    expect(section.notes[0]).toContain('confirm, 256 B with threads=10');
    expect(section.findings_count).toBe(0);
    expect(amqplib!.verdict).toBe('✅ recovered every time, nothing lost');
    // No verdict names a scenario: nothing to list under the table.
    expect(section.scenarios_list).toBe('');
    expect(section.throughput_table.split('\n')[0]).toMatch(
      /^\| Client +\| Publish +\| Consume +\| Confirm p50 +\| Confirm p99 +\| Harness\/bare \|$/,
    );
    expect(section.faults_table).toMatch(
      /\| amqplib \(defaults\) +\| 1\.5 ms +\| [\d.]+ ms +\| 180 ms +\| 95 ms +\| 300 ms +\| 0 +\| 12 +\| ✅ recovered every time, nothing lost \|/,
    );
    // One entry per configuration, in the rows' order: its library, version and settings.
    expect(
      section.settings_list.map((entry) => {
        const [, client, library, version, settings] = /^\*\*(.+)\*\*: (\S+) (\S+); (.*)$/.exec(entry)!;
        return [client, library, version, settings!.split(' · ')];
      }),
    ).toEqual([
      ['amqplib (defaults)', 'amqplib', '2.3.1', ['heartbeat=default']],
      ['rabbitmq-client (defaults)', 'rabbitmq-client', '5.0.8', ['heartbeat=default']],
      ['rabbitmq-client (normalised)', 'rabbitmq-client', '5.0.8', ['heartbeat=5', 'retryLow=100']],
    ]);
  });

  it('says in its row what a client failed, and keeps the other rows', () => {
    const broken = clientRun('cloudamqp', 'defaults').map((result): RawResult => {
      if (result.name === 'recovery_after_reset_peer')
        return {
          ...result,
          // The median says 10, one replicate of three brought back 7 threads only.
          metrics: { ...result.metrics, recovery_after_removal_ms: metric(null, 'ms') },
          replicates: { threads_recovered: [10, 7, 10] },
        };
      if (result.name === 'realistic_recovery_correctness')
        return { ...result, metrics: { ...result.metrics, messages_lost: metric(3, 'count'), unexplained_duplicates: metric(2, 'count') } };
      return result;
    });
    // Its partition test failed before recording anything.
    const withoutPartition = broken.filter((result) => result.name !== 'recovery_after_network_partition');
    const tests: TestOutcome[] = [
      passed(
        'benchmarks/bench_recovery_latency.bench.ts::amqplib (defaults)::TestRecoveryLatency::test_recovery_after_network_partition[10]',
      ),
      {
        ...passed(
          'benchmarks/bench_recovery_latency.bench.ts::cloudamqp (defaults)::TestRecoveryLatency::test_recovery_after_network_partition[10]',
        ),
        status: 'failed',
        failure_message: 'thrown: Exceeded timeout of 300000 ms for a test.\nAdd a timeout value to this test',
      },
    ];
    // Its correctness test recorded its figures, then failed.
    tests.push({
      ...passed('benchmarks/bench_x.bench.ts::cloudamqp (defaults)::TestX::realistic_recovery_correctness'),
      status: 'failed',
      failure_message: [
        'Error: expect(received).toEqual(expected) // deep equality',
        '',
        '- Expected  - 1',
        '+ Received  + 3',
        '',
        '- Array []',
        '+ Array [',
        '+   "producer thread 1: Error: write ECONNRESET",',
        '+   "1 connections still down at the end",',
        '+ ]',
      ].join('\n'),
    });
    const section = buildClientsSection([...clientRun('amqplib', 'defaults'), ...withoutPartition], tests)!;
    const [amqplib, cloudamqp] = section.rows;
    expect(amqplib!.findings).toEqual([]);
    // Each finding: its kind, its figures and the result it is in.
    const found = cloudamqp!.findings.map(foundIn);
    expect(found.map(([what, result]) => [figuresOf(what), result])).toEqual([
      [['7/10 threads', '3'], 'recovery_after_reset_peer (10 threads · reset_peer)'],
      [['3'], 'realistic_recovery_correctness (4 consumers)'],
      [['2'], 'realistic_recovery_correctness (4 consumers)'],
    ]);
    expect(found.map(([what]) => what)).toEqual([
      expect.stringMatching(/^did not recover: /),
      expect.stringMatching(/^lost 3 confirmed/),
      expect.stringMatching(/^2 duplicates/),
    ]);
    // Failed tests are said apart: the harness's failures, no verdict on the client.
    expect(cloudamqp!.harness_failures).toEqual([
      'test_recovery_after_network_partition[10]: thrown: Exceeded timeout of 300000 ms for a test.',
      'realistic_recovery_correctness: producer thread 1: Error: write ECONNRESET; 1 connections still down at the end',
    ]);
    expect(cloudamqp!.figures).toMatchObject({
      rst_recovery_after_removal: 'did not recover',
      partition_detection: '—',
      messages_lost: '❌ 3 (test failed)',
      duplicates: '12 (❌ 2 unexplained) (test failed)',
    });
    // Scenario by scenario, each named once by its label; then the harness failures, a line of their own.
    expect(cloudamqp!.verdict.split('<br>')).toEqual([
      '❌ **TCP reset**: did not recover: 7/10 threads back in a replicate of 3',
      '**Recovery correctness**: lost 3 confirmed messages; 2 duplicates at-least-once does not explain',
      expect.stringMatching(/^⚠ harness failure, no verdict: test_recovery_after_network_partition\[10\]: thrown/),
    ]);
    expect(section.scenarios_list.split('\n')).toEqual([
      'The scenarios the verdicts name, each with its result name and parameters:',
      '',
      '- **TCP reset**: `recovery_after_reset_peer`, 10 threads · reset_peer',
      '- **Recovery correctness**: `realistic_recovery_correctness`, 4 consumers',
    ]);
    expect(section.findings_count).toBe(1);
  });

  it('reads the findings a result records, with their scenario; a test that failed on them alone is no harness failure', () => {
    const withFindings = clientRun('cloudamqp', 'defaults').map((result): RawResult =>
      result.name === 'realistic_recovery_correctness'
        ? {
            ...result,
            // Recorded by the suite: the figures' own reading (none lost here) gives way to them.
            findings: [
              {
                kind: 'unhandled_error',
                where: 'producer thread 1',
                text: '3 error(s) nobody handled inside the client',
                evidence: ['unhandled rejection: write ECONNRESET (×3)'],
              },
            ],
            harness_problems: [],
          }
        : result,
    );
    const failedOnFindings: TestOutcome = {
      ...passed(withFindings.find((result) => result.name === 'realistic_recovery_correctness')!.test_id),
      status: 'failed',
      failure_message: 'expect(received).toEqual(expected)',
    };
    const section = buildClientsSection([...clientRun('amqplib', 'defaults'), ...withFindings], [failedOnFindings])!;
    const cloudamqp = section.rows[1]!;
    // The suite's own finding, where it found it and in which result; the verdict is ❌ and that finding.
    expect(cloudamqp.findings.map(foundIn)).toEqual([
      ['producer thread 1: 3 error(s) nobody handled inside the client', 'realistic_recovery_correctness (4 consumers)'],
    ]);
    expect(cloudamqp.harness_failures).toEqual([]);
    // One finding reads as it did, its scenario named before it.
    expect(cloudamqp.verdict).toBe('❌ **Recovery correctness**: producer thread 1: 3 error(s) nobody handled inside the client');
  });

  it('a client whose confirms never settled: its confirm-mode publish results are findings with no rate, never a harness failure', () => {
    const unsettled = {
      kind: 'publish_hung' as const,
      text: '1 confirm(s) never settled within the publish bound of 10000 ms: each stopped its publisher there (an application awaiting it would still be waiting), and the measurement after that round',
      count: 1,
      evidence: ['round 1 (warm-up): publisher 4 at its publish 15 of 100', 'github.com/rabbitmq/amqp091-go 1.5.0; its confirms: ...'],
    };
    const hung = clientRun('cloudamqp', 'defaults').map((result): RawResult =>
      result.name === 'publish_throughput' && result.parameters.publish_mode === 'confirm'
        ? {
            ...result,
            metrics: Object.fromEntries(Object.entries(result.metrics).map(([name, each]) => [name, { ...each, value: null }])),
            samples: {},
            replicates: {},
            findings: [unsettled],
          }
        : result,
    );
    // Run with --fail-on-findings: its tests failed on the findings alone.
    const failedOnFindings = hung
      .filter((result) => result.findings)
      .map((result): TestOutcome => ({
        ...passed(result.test_id),
        status: 'failed',
        failure_message: 'expect(received).toEqual(expected)',
      }));
    const section = buildClientsSection([...clientRun('amqplib', 'defaults'), ...hung], failedOnFindings)!;
    const cloudamqp = section.rows[1]!;
    expect(cloudamqp.findings).toEqual([
      expect.stringMatching(
        /^1 confirm\(s\) never settled within the publish bound of 10000 ms: .* \(publish_throughput \(10 threads .*confirm/,
      ),
      expect.stringMatching(
        /^1 confirm\(s\) never settled within the publish bound of 10000 ms: .* \(publish_throughput \(100 threads .*confirm/,
      ),
    ]);
    expect(cloudamqp.harness_failures).toEqual([]);
    // Two scenarios of one name, told apart by what differs between them.
    expect(cloudamqp.verdict).toMatch(/^❌ \*\*Publish throughput \(10 threads\)\*\*: 1 confirm\(s\) never settled/);
    expect(cloudamqp.verdict).toMatch(/<br>\*\*Publish throughput \(100 threads\)\*\*: 1 confirm\(s\) never settled/);
    expect(cloudamqp.verdict).not.toContain('harness failure');
    // Clients with findings: this one.
    expect(section.findings_count).toBe(1);
  });

  it('a client whose only trouble is a harness failure gets ⚠, never ❌ or ✅', () => {
    const partitionFailed: TestOutcome = {
      ...passed(
        'benchmarks/bench_recovery_latency.bench.ts::cloudamqp (defaults)::TestRecoveryLatency::test_recovery_after_network_partition[10]',
      ),
      status: 'failed',
      failure_message: 'Error: threads failed to connect through the proxy: thread 0: ECONNREFUSED',
    };
    const section = buildClientsSection([...clientRun('amqplib', 'defaults'), ...clientRun('cloudamqp', 'defaults')], [partitionFailed])!;
    // ⚠, naming the test that failed and its own message.
    const verdict = section.rows[1]!.verdict;
    expect(verdict).toMatch(/^⚠ harness failure/);
    expect(verdict).toContain(`test_recovery_after_network_partition[10]: ${partitionFailed.failure_message}`);
    expect(verdict).not.toMatch(/[❌✅]/);
    expect(section.findings_count).toBe(0);
  });

  it('a scenario the client cannot run is ➖ cannot run with its reason: no ✅, no finding, no harness failure', () => {
    const reason =
      "foo-foo-mq keeps one subscription per queue per connection (its adapter's consumersPerQueue: 'one'), and this row puts 20 consumers ...";
    const base = clientRun('amqplib', 'defaults').find((result) => result.name === 'realistic_recovery_correctness')!;
    const cannotRun: RawResult = asClient('foo-foo-mq', 'defaults', {
      ...base,
      name: 'massive_consumers',
      parameters: { ...base.parameters, consumers: 20, worker_threads: 4 },
      metrics: {},
      samples: {},
      findings: [],
      harness_problems: [],
      cannot_run: reason,
    });
    const section = buildClientsSection(
      [...clientRun('amqplib', 'defaults'), ...clientRun('foo-foo-mq', 'defaults'), cannotRun],
      [passed(cannotRun.test_id)],
    )!;
    const foo = section.rows.find((row) => row.client === 'foo-foo-mq (defaults)')!;
    expect(foo.cannot_run).toEqual([expect.stringMatching(/^massive_consumers \(.*20 consumers.*\): foo-foo-mq keeps one subscription/)]);
    expect(foo.findings).toEqual([]);
    expect(foo.harness_failures).toEqual([]);
    expect(foo.verdict).toMatch(
      /^➖ cannot run: \*\*Massive consumers\*\*: foo-foo-mq .*; everything else recovered every time, nothing lost$/,
    );
    expect(foo.verdict).not.toMatch(/[❌✅⚠]/);
    expect(section.findings_count).toBe(0);
    // With a finding as well, both are said: the finding first, each on its line.
    const lost = { scenario: { name: 'x', parameters: {} }, where: null, text: 'lost 3 messages' };
    const massive = { scenario: { name: 'massive_consumers', parameters: { consumers: 20 } }, reason: 'why' };
    // Without labels, each scenario by its full name.
    expect(rowVerdict([lost], [], [massive])).toBe('❌ **x**: lost 3 messages<br>➖ cannot run: **massive_consumers (20 consumers)**: why');
  });

  it('marks a harness overhead under 90% of the bare script', () => {
    const results = [...clientRun('amqplib', 'defaults'), ...clientRun('amqplib', 'normalised')].map((result) =>
      result.name === 'harness_overhead' && result.parameters.client_profile === 'normalised'
        ? { ...result, metrics: { ratio_percent: metric(84.5, '%', 'higher') } }
        : result,
    );
    expect(buildClientsSection(results, [])!.rows.map((row) => row.figures.harness_ratio)).toEqual(['97% ✅', '84.5% ❌']);
  });
});
