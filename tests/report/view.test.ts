/**
 * The report's view model and layout, on a recorded quick run: verdict and key metrics first,
 * detail tables with configurations as rows inside 100 columns, each note said once.
 */
import { recoveryScenarios } from '../../src/report/glance';
import { renderMarkdown } from '../../src/report/render';
import { familyNotes } from '../../src/report/resultTables';
import { MAX_TABLE_WIDTH } from '../../src/report/familyTables';
import { rawResult } from '../results/helpers';
import { recordedRun, recordedView } from './recorded';
import { cellsOf, figuresOf, namesOf, sectionOf, tableLines } from './support/reading';

describe('the first screen', () => {
  const view = recordedView();

  it('says the verdict in one line, with the targets met and those missed by name', () => {
    // ✅, the tests passed and skipped, then the targets: met, of all, missed.
    expect(view.glance.verdict).toMatch(/^✅ passed/);
    expect(figuresOf(view.glance.verdict)).toEqual(['21 tests', '16', '16', '17 targets', '1']);
    expect(view.glance.targets_missed).toEqual(['Harness overhead: ratio 82.6%, target > 90%']);
    expect([view.summary.targets_met, view.summary.targets_total]).toEqual([16, 17]);
  });

  it('shows the peaks with what they were measured on, and every recovery scenario in one table', () => {
    expect(view.glance.peaks.rows).toEqual([
      { label: 'Peak publish throughput', value: '58,571 msg/s', configuration: '100 threads · 256 B · plain' },
      { label: 'Peak publish bandwidth', value: '137.7 MB/s', configuration: '100 threads · 4096 B · plain' },
      { label: 'Peak consume throughput', value: '2,474 msg/s', configuration: '20 consumers · 256 B' },
    ]);
    expect(view.glance.recovery.rows.map((row) => row.scenario)).toEqual([
      'TCP reset · 10 threads',
      'TCP reset · 50 threads',
      'Partition · 10 threads',
      'Partition · 50 threads',
      'Latency, then reset · 10 threads',
    ]);
    expect(view.glance.recovery.rows[0]).toEqual({
      scenario: 'TCP reset · 10 threads',
      detection: '1.22 ✅',
      propagation: '26.8',
      detection_spread: '25.6',
      // Recorded before results carried it.
      fault_spread: '—',
      full_recovery: '187.6 ✅',
    });
    expect(view.glance.recovery.table.split('\n')[0]).toMatch(
      /^\| Scenario +\| Detection \(ms\) \| Propagation \(ms\) \| Detection spread \(ms\) \| Fault spread \(ms\) \| Full recovery \(ms\) \|$/,
    );
    // No overhead check in the recorded run: no floor table.
    expect(view.glance.recovery.floor).toEqual({ rows: [], table: '', note: '' });
  });

  it('tells recovery configurations apart by whatever else varies in their family (e.g. the client)', () => {
    const run = recordedRun();
    const reset = run.results.find((result) => result.name === 'recovery_after_reset_peer')!;
    const twoClients = [
      { ...reset, parameters: { ...reset.parameters, client: 'amqplib' } },
      { ...reset, parameters: { ...reset.parameters, client: 'rabbitmq-client' } },
    ];
    expect(recoveryScenarios(twoClients).map((entry) => entry.scenario)).toEqual([
      'TCP reset · 10 threads · client=amqplib',
      'TCP reset · 10 threads · client=rabbitmq-client',
    ]);
  });

  it('puts verdict, key metrics and charts before the detail tables, the comparison and the environment', () => {
    const markdown = renderMarkdown(
      recordedView({ charts: [{ id: 'x', title: 'X', caption: 'c', file: 'chart-x.svg', earlier_run: null }] }),
    );
    const order = [
      '**✅ passed',
      '## Key metrics',
      '## Charts',
      '![X](chart-x.svg)',
      '## Throughput results',
      '## Comparison with the previous run',
      '## Run and environment',
    ];
    const positions = order.map((text) => markdown.indexOf(text));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('uses headings a docs outline shows: one title, then levels 2 and 3 only', () => {
    const headings = renderMarkdown(view)
      .split('\n')
      .filter((line) => /^#+ /.test(line));
    expect(headings.filter((line) => line.startsWith('# '))).toEqual(['# AMQP client benchmark report']);
    expect(headings.filter((line) => /^#{4,} /.test(line))).toEqual([]);
    expect(headings).toEqual(expect.arrayContaining(['### Publish throughput', '### Recovery after reset peer', '## Recovery results']));
  });
});

describe('the detail tables', () => {
  const view = recordedView();
  const families = view.categories.flatMap((category) => category.families);
  const publish = families.find((family) => family.name === 'publish_throughput')!;

  it('have one row per configuration (six publish configurations, six rows in each table)', () => {
    for (const table of publish.tables) {
      const rows = tableLines(table).slice(2);
      expect(rows.map((row) => cellsOf(row)[0])).toEqual([
        '10 threads · 256 B · confirm',
        '100 threads · 256 B · confirm',
        '10 threads · 256 B · plain',
        '100 threads · 256 B · plain',
        '100 threads · 4096 B · confirm',
        '100 threads · 4096 B · plain',
      ]);
    }
    // What all six share is said once, above the tables.
    expect(publish.parameters).toBe('100 msgs/thread · rounds=5 · worker_threads=4');
    // The figures are columns: the peak is in the first table, next to its configuration.
    expect(tableLines(publish.tables[0]!)[0]).toMatch(/^\| Configuration +\| Throughput \(msg\/s, n=5\) \| Throughput \(MB\/s, n=5\) \|$/);
    expect(publish.table).toMatch(/\| 100 threads · 256 B · plain +\| 58,571 +\|/);
  });

  it('fit 100 columns, every table of every family', () => {
    const tooWide = families.flatMap((family) =>
      family.tables.flatMap((table) =>
        tableLines(table)
          .filter((line) => [...line].length > MAX_TABLE_WIDTH)
          .map((line) => `${family.name}: ${line}`),
      ),
    );
    expect(tooWide).toEqual([]);
  });

  it('group percentiles of one quantity into a table of their own', () => {
    const latency = publish.tables.find((table) => table.startsWith('| Publish latency (ms)'))!;
    expect(tableLines(latency)[0]).toMatch(/^\| Publish latency \(ms\) +\| p50 +\| p95 +\| p99 +\| max +\|$/);
    const massive = families.find((family) => family.name === 'massive_consumers')!;
    expect(massive.tables.join('\n')).toMatch(/\| End-to-end latency \| 27\.5 \| 69\.9 \| 77\.4 \| 81\.1 \| 600 +\|/);
  });

  it('show the resilience summary with its fault scenarios as rows, detection spread derived', () => {
    const summary = families.find((family) => family.name === 'network_resilience_summary')!;
    const first = tableLines(summary.tables[0]!);
    expect(cellsOf(first[0]!)).toEqual(['Scenario', 'Detection (first thread)', 'Propagation (all threads)', 'Detection spread']);
    expect(first.slice(2).map((line) => cellsOf(line)[0])).toEqual(['TCP reset', 'Partition', 'Slow network']);
  });
});

describe('notes', () => {
  const view = recordedView();
  const markdown = renderMarkdown(view);

  it('are each said once in the whole report (18 publish bullets before, 9 now)', () => {
    const bullets = markdown.split('\n').filter((line) => line.startsWith('- '));
    const duplicated = bullets.filter((line, index) => bullets.indexOf(line) !== index);
    expect(duplicated).toEqual([]);
    const publish = view.categories.flatMap((category) => category.families).find((family) => family.name === 'publish_throughput')!;
    expect(publish.notes).toHaveLength(9);
  });

  it('say which configurations they are about, by the parameters that pick them out', () => {
    const publish = view.categories.flatMap((category) => category.families).find((family) => family.name === 'publish_throughput')!;
    expect(publish.notes.filter((note) => note.startsWith('confirm: '))).toHaveLength(2);
    expect(publish.notes.filter((note) => note.startsWith('plain: '))).toHaveLength(2);
    expect(publish.notes.filter((note) => note.startsWith('100 threads: '))).toHaveLength(1);
    // Notes about every configuration come first.
    expect(publish.notes[0]).toMatch(/^throughput: the median of 5 measured rounds/);
  });

  it('that two families of a category share are said once for the category', () => {
    const realistic = view.categories.find((category) => category.category === 'realistic')!;
    // Every realistic workload, through faults or not (one suite, one section).
    expect(realistic.families).toHaveLength(6);
    expect(namesOf(realistic.shared_notes_families)).toEqual(realistic.families.map((family) => family.title));
    expect(realistic.shared_notes.some((note) => note.startsWith('rates: produce = messages'))).toBe(true);
    for (const family of realistic.families) expect(family.notes.some((note) => note.startsWith('rates: produce'))).toBe(false);
    // A note only some of the sharing families have names them.
    const recovery = view.categories.find((category) => category.category === 'recovery')!;
    const timed = recovery.shared_notes.filter((note) => note.includes('detection timed from the proxy fault timeline'));
    expect(timed).toHaveLength(1);
    expect(namesOf(timed[0]!.slice(0, timed[0]!.indexOf(': ')))).toEqual([
      'Recovery after reset peer',
      'Recovery with latency before failure',
    ]);
    expect(recovery.families.length).toBeGreaterThan(2);
  });

  it('fall back to the row labels when no parameter picks the configurations out', () => {
    const results = [
      rawResult({ name: 'x', parameters: { a: 1, b: 1 }, notes: ['odd'] }),
      rawResult({ name: 'x', parameters: { a: 1, b: 2 } }),
      rawResult({ name: 'x', parameters: { a: 2, b: 2 }, notes: ['odd'] }),
    ];
    expect(familyNotes(results, ['a=1 · b=1', 'a=1 · b=2', 'a=2 · b=2'])).toEqual(['a=1 · b=1; a=2 · b=2: odd']);
  });
});

describe('a run that failed part-way', () => {
  it('says which charts are from an earlier run', () => {
    const archive = { ...recordedRun(), status: 'failed' as const };
    const markdown = renderMarkdown(
      recordedView({
        archive,
        charts: [
          {
            id: 'throughput-by-threads',
            title: 'Throughput',
            caption: 'Bars.',
            file: 'chart-throughput-by-threads.svg',
            earlier_run: null,
          },
          {
            id: 'recovery-by-scenario',
            title: 'Recovery times by scenario (from run_20261122_185352_3271dbb8)',
            caption: 'Bars.',
            file: 'chart-recovery-by-scenario.svg',
            earlier_run: 'run_20261122_185352_3271dbb8',
          },
        ],
      }),
    );
    // Under the chart drawn from the earlier run only, naming that run, before its own caption.
    const earlier = sectionOf(markdown, '### Recovery times by scenario (from run_20261122_185352_3271dbb8)');
    const marked = earlier.split('\n').filter((line) => line.includes('**From an earlier run**'));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toMatch(/^⚠️ .*`run_20261122_185352_3271dbb8`.*Bars\.$/);
    expect(markdown.match(/From an earlier run/g)).toHaveLength(1);
  });
});

describe('a target the interval cannot settle', () => {
  it('is listed apart from the misses and marked ➖ in the recovery table, never ❌', () => {
    const archive = recordedRun();
    const reset = archive.results.find((result) => result.name === 'recovery_after_reset_peer' && result.parameters.threads === 10)!;
    const target = reset.targets!.find((candidate) => candidate.metric === 'error_detection_latency_ms')!;
    Object.assign(target, {
      met: null,
      verdict: 'inconclusive',
      reason: 'inconclusive: [0.76 ms, 21.1 ms] (5 repetitions, 75% interval of the median); its interval straddles the target',
    });
    const view = recordedView({ archive });

    expect(view.glance.targets_missed).toEqual(['Harness overhead: ratio 82.6%, target > 90%']);
    expect(view.glance.targets_open).toEqual([expect.stringMatching(/^TCP reset · 10 threads: .*\(inconclusive: \[0\.76 ms, 21\.1 ms\]/)]);
    expect(view.glance.recovery.rows[0]).toMatchObject({ scenario: 'TCP reset · 10 threads', detection: expect.stringMatching(/ ➖$/) });
    const markdown = renderMarkdown(view);
    expect(markdown).toContain('Targets not settled:');
    expect(markdown).toMatch(/- ➖ TCP reset · 10 threads: /);
    expect(markdown).not.toMatch(/- ❌ TCP reset · 10 threads/);
  });
});
