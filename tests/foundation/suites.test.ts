/**
 * One taxonomy: a suite is its benchmark file (benchmarks/bench_<suite>.bench.ts), the category
 * its results record, its report section and — when it has code of its own — its folder under
 * src/. The catalogue (src/scenarios/catalogue.ts) is the one list; categories recorded before
 * suites named them are read back as the suite that took them over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { descriptorOf, SCENARIOS, SUITES, suiteOf } from '../../src/scenarios/catalogue';

const ROOT = path.resolve(__dirname, '../..');

describe('the suites', () => {
  it('are the benchmark files, one each (bench load has none: it is a command)', () => {
    const files = fs
      .readdirSync(path.join(ROOT, 'benchmarks'))
      .map((file) => /^bench_([a-z_]+)\.bench\.ts$/.exec(file)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files.sort()).toEqual(
      SUITES.map((suite) => suite.name)
        .filter((name) => name !== 'load')
        .sort(),
    );
  });

  it('have a folder of their own where they say so, and their names are unique', () => {
    for (const suite of SUITES.filter((each) => each.folder))
      expect([suite.name, fs.existsSync(path.join(ROOT, 'src', suite.name))]).toEqual([suite.name, true]);
    expect(new Set(SUITES.map((suite) => suite.name)).size).toBe(SUITES.length);
    expect(new Set(SCENARIOS.map((scenario) => scenario.name)).size).toBe(SCENARIOS.length);
  });

  it('read a result by its scenario, then by the suite its category names', () => {
    expect(suiteOf({ name: 'massive_consumers', category: 'realistic' }).name).toBe('realistic');
    expect(suiteOf({ name: 'my_own_benchmark', category: 'throughput' }).title).toBe('Throughput');
    // A family the catalogue does not know keeps its own category as a section.
    expect(suiteOf({ name: 'my_own_benchmark', category: 'soak' })).toMatchObject({ name: 'soak', title: 'Soak' });
  });

  it('read results recorded before suites named their category as the suite that took it over', () => {
    expect(suiteOf({ name: 'massive_consumers', category: 'scalability' }).name).toBe('realistic');
    expect(suiteOf({ name: 'fault_matrix_alarm', category: 'faults' }).name).toBe('matrix');
    expect(suiteOf({ name: 'cluster_failover_node_killed', category: 'resilience' }).name).toBe('cluster');
    expect(suiteOf({ name: 'realistic_latency', category: 'resilience' }).name).toBe('realistic');
    // Older families the catalogue no longer knows: by the former category alone.
    expect(suiteOf({ name: 'an_older_workload', category: 'scalability' }).name).toBe('realistic');
    expect(suiteOf({ name: 'an_older_cell', category: 'faults' }).name).toBe('matrix');
    expect(descriptorOf({ name: 'an_older_cell', category: 'faults' }).suite).toBe('matrix');
  });
});
