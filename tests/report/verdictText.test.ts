/**
 * The clients table's verdict cell, grouped: each scenario named once by its short label (its
 * parameters once, under the table), one finding of several threads said once with the threads
 * as ranges, and nothing dropped (a count said of several threads is each one's; a finding twice
 * in one place says so). The fixture (./clientFindingsRun.ts) is two rows of the bench:clients run
 * the clients guide's table comes from.
 */
import { buildClientsSection } from '../../src/report/clientsSection';
import { indexRanges, placesText, rowVerdict, scenarioLabels } from '../../src/report/verdictText';
import { renderMarkdown } from '../../src/report/render';
import { buildReportView } from '../../src/report/view';
import { buildRunArchive } from '../../src/results/archive';
import { environment } from '../results/helpers';
import { clientRun } from './builders';
import { cloudamqp, fooFooMq, UNHANDLED } from './clientFindingsRun';
import { sectionOf, tablesOf } from './support/reading';

describe('the clients table’s verdict cell', () => {
  const section = buildClientsSection([...clientRun('amqplib', 'defaults'), ...cloudamqp, ...fooFooMq], [])!;
  const row = (client: string) => section.rows.find((each) => each.client === client)!;

  it('names each scenario once and says a finding of several threads once, with its threads as ranges', () => {
    expect(row('foo-foo-mq (defaults)').verdict.split('<br>')).toEqual([
      '❌ **Periodic resets (consumer_threads=4)**: consumer threads 0–3 and producer threads 0–1: stopped on an error of the client; ' +
        'the workload: 100 confirmed message(s) lost: never delivered; under resets: did not drain; ' +
        'the workload: 6 connection(s) still down at the end; the queue: 106 message(s) left in the queue at the end',
      '**Recovery correctness**: consumer threads 0–3 and producer threads 0–1: stopped on an error of the client; ' +
        'sequence run: did not drain; the workload: 6 connection(s) still down at the end; ' +
        'the queue: 181 message(s) left in the queue at the end',
      "➖ cannot run: **Massive consumers**: foo-foo-mq keeps one subscription per queue per connection (its adapter's consumersPerQueue: 'one')",
    ]);
    // Every finding is still there, in full, for whoever reads the rows' data.
    expect(row('foo-foo-mq (defaults)').findings).toHaveLength(19);
  });

  it('keeps counts exact: different counts stay apart, and a label means one scenario in every row', () => {
    expect(row('cloudamqp (defaults)').verdict.split('<br>')).toEqual([
      `❌ **Periodic resets (consumer_threads=2)**: producer thread 1: 4 ${UNHANDLED}`,
      `**Recovery correctness**: producer thread 0: 10 ${UNHANDLED}; producer thread 1: 18 ${UNHANDLED}`,
    ]);
    expect(row('amqplib (defaults)').verdict).toBe('✅ recovered every time, nothing lost');
  });

  it('lists each scenario the verdicts name once under the table, with its result name and every parameter', () => {
    expect(section.scenarios_list.split('\n')).toEqual([
      'The scenarios the verdicts name, each with its result name and parameters:',
      '',
      '- **Periodic resets (consumer_threads=2)**: `realistic_periodic_resets`, 4 consumers · consumer_threads=2 · producer_threads=2 · ' +
        '6000 msgs · target_rate_msgs_per_sec=1000 · reset_cycles=3 · reset_interval_ms=1500 · reset_hold_ms=250',
      '- **Recovery correctness**: `realistic_recovery_correctness`, 4 consumers · producer_threads=2 · 4000 msgs · ' +
        'target_rate_msgs_per_sec=800 · reset_cycles=3 · persistent=true · durable_queue=true · confirms=true',
      '- **Periodic resets (consumer_threads=4)**: `realistic_periodic_resets`, 4 consumers · consumer_threads=4 · producer_threads=2 · ' +
        '6000 msgs · target_rate_msgs_per_sec=1000 · reset_cycles=3 · reset_interval_ms=1500 · reset_hold_ms=250',
      '- **Massive consumers**: `massive_consumers`, 20 consumers · worker_threads=4 · producer_threads=2 · prefetch=100 · 256 B',
    ]);
    // The table holds no parameter list any more: each is said once, in the list.
    expect(section.faults_table).not.toContain('reset_hold_ms');
  });

  it('says a counted finding of several threads is each one’s, and one found twice in the same place', () => {
    const scenario = { name: 'realistic_recovery_correctness', parameters: {} };
    const at = (where: string | null, text: string) => ({ scenario, where, text });
    expect(
      rowVerdict(
        [
          at('producer thread 0', `1 ${UNHANDLED}`),
          at('producer thread 1', `1 ${UNHANDLED}`),
          at(null, 'lost 3 confirmed messages'),
          at(null, 'lost 3 confirmed messages'),
          // Already about several threads: its count is theirs together, so it stays apart.
          at('thread(s) 0, 2, 3, 4', `4 ${UNHANDLED}`),
        ],
        [],
      ),
    ).toBe(
      `❌ **realistic_recovery_correctness**: producer threads 0–1, each: 1 ${UNHANDLED}; ` +
        `lost 3 confirmed messages (×2); threads 0, 2–4: 4 ${UNHANDLED}`,
    );
  });

  it('with one finding, reads as a sentence: the scenario, where, what', () => {
    const scenario = { name: 'recovery_after_broker_close', parameters: { threads: 10 } };
    const labels = scenarioLabels([scenario]);
    expect(rowVerdict([{ scenario, where: 'thread 3', text: 'stopped consuming' }], [], [], labels)).toBe(
      '❌ **Broker closes the connection**: thread 3: stopped consuming',
    );
  });

  it('keeps ⚠ apart from ❌, and ✅ only when there is neither nor anything it cannot run', () => {
    const scenario = { name: 'realistic_latency', parameters: {} };
    expect(rowVerdict([], ['test_x: the fault was not injected'])).toBe(
      '⚠ harness failure, no verdict: test_x: the fault was not injected',
    );
    expect(rowVerdict([{ scenario, where: 'the workload', text: 'did not drain' }], ['test_x: why'])).toBe(
      '❌ **realistic_latency**: the workload: did not drain<br>⚠ harness failure, no verdict: test_x: why',
    );
    expect(rowVerdict([], [], [])).toBe('✅ recovered every time, nothing lost');
  });
});

describe('the report’s clients section', () => {
  it('shows the grouped verdicts in the faults table and the scenarios they name under it', () => {
    const archive = buildRunArchive({
      environment: environment(),
      startedAt: new Date('2026-11-28T10:44:01Z'),
      finishedAt: new Date('2026-11-28T11:07:33Z'),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: 0,
      interrupted: false,
      tests: [],
      suiteErrors: [],
      results: [...clientRun('amqplib', 'defaults'), ...cloudamqp, ...fooFooMq],
      invalidResultFiles: [],
      warnings: [],
    });
    const view = buildReportView({
      archive,
      archiveFile: 'run.json',
      historyRuns: [],
      comparison: null,
      comparisonNote: '',
      thresholdPercent: null,
      regressions: [],
      charts: [],
      generatedAt: new Date('2026-11-28T11:08:00Z'),
      warnings: [],
    });
    const section = sectionOf(renderMarkdown(view), '## Clients side by side');
    const faults = tablesOf(section).find((table) => table.header.at(-1) === 'Verdict')!;
    const foo = faults.rows.find((row) => row[0] === 'foo-foo-mq (defaults)')!;
    expect(foo.at(-1)).toMatch(
      /^❌ \*\*Periodic resets \(consumer_threads=4\)\*\*: consumer threads 0–3 and producer threads 0–1: stopped/,
    );
    // The list right under the table (after a blank line), one entry per scenario named.
    const lines = section.split('\n');
    const list = lines.indexOf('The scenarios the verdicts name, each with its result name and parameters:');
    expect(lines[list - 2]).toMatch(/^\| foo-foo-mq \(defaults\) /);
    expect(lines.slice(list + 2, list + 6).map((line) => /^- \*\*(.+?)\*\*: `(\w+)`/.exec(line)?.slice(1))).toEqual([
      ['Periodic resets (consumer_threads=2)', 'realistic_periodic_resets'],
      ['Recovery correctness', 'realistic_recovery_correctness'],
      ['Periodic resets (consumer_threads=4)', 'realistic_periodic_resets'],
      ['Massive consumers', 'massive_consumers'],
    ]);
    expect(lines[list + 6]).toBe('');
  });
});

describe('places of one finding', () => {
  it('are ranges of threads per role, in the order first found, and other places as they are', () => {
    expect(indexRanges([3, 0, 1, 2, 7, 9, 8, 5])).toBe('0–3, 5, 7–9');
    expect(placesText(['producer thread 1', 'consumer thread 0', 'producer thread 0', 'consumer thread 1'])).toBe(
      'producer threads 0–1 and consumer threads 0–1',
    );
    expect(placesText(['thread 4'])).toBe('thread 4');
    expect(placesText(['under resets', 'sequence run', 'thread 2'])).toBe('under resets, sequence run and thread 2');
    // A list the suite cut short is not read as threads.
    expect(placesText(['thread(s) 0, 1, … (12 in all)'])).toBe('thread(s) 0, 1, … (12 in all)');
  });
});
