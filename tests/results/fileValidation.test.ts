/**
 * The archive, the history, the Jest outcome and the shard manifest are checked against their schemas where they are
 * written (nothing off-schema reaches the disk) and where they are read (a file that does not
 * follow its schema is not taken for one), while every file recorded so far still reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildRunArchive, readRunArchive, writeRunArchive, type RunArchive } from '../../src/results/archive';
import { appendToHistory, historyEntryOf, historyPath, readHistory } from '../../src/results/history';
import { outcomePath, readOutcome, writeOutcome, type JestOutcome } from '../../src/results/outcome';
import { schemaProblem, type SchemaFile } from '../../src/results/schemas';
import {
  readShardManifest,
  shardManifestPath,
  SHARD_MANIFEST_SCHEMA_VERSION,
  writeShardManifest,
  type ShardManifest,
} from '../../src/results/shardManifest';
import { environment, realisticResults, tempDir } from './helpers';

const FIXTURES = path.join(__dirname, '..');

function archive(overrides: Partial<RunArchive> = {}): RunArchive {
  const built = buildRunArchive({
    environment: environment(),
    startedAt: new Date('2025-01-31T12:00:00Z'),
    finishedAt: new Date('2025-01-31T12:04:00Z'),
    markerExpression: null,
    testNameFilter: null,
    invokedBy: 'cli',
    jestExitCode: 0,
    interrupted: false,
    tests: [],
    suiteErrors: [],
    results: realisticResults(),
    invalidResultFiles: [],
    warnings: [],
  });
  return { ...built, ...overrides };
}

const outcome: JestOutcome = {
  schema_version: 1,
  started_at: '2025-01-31T12:00:00.000Z',
  updated_at: '2025-01-31T12:01:00.000Z',
  complete: false,
  tests: [{ test_id: 'benchmarks/a.bench.ts::A::a', full_name: 'A a', status: 'passed', duration_ms: 10, failure_message: null }],
  suite_errors: [],
};

let dir: string;
beforeEach(() => {
  dir = tempDir('file-validation');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('files recorded so far', () => {
  it.each<[string, SchemaFile]>([
    ['report/fixtures/recorded-run.json', 'run-archive.schema.json'],
    ['report/fixtures/recorded-history.json', 'benchmark-history.schema.json'],
    ['cli/fixtures/gate/shared-machine/benchmark_history.json', 'benchmark-history.schema.json'],
    ...fs
      .readdirSync(path.join(FIXTURES, 'cli/fixtures/gate/shared-machine'))
      .filter((name) => name.startsWith('run_'))
      .map((name): [string, SchemaFile] => [`cli/fixtures/gate/shared-machine/${name}`, 'run-archive.schema.json']),
    ...[1, 2, 3].map((shard): [string, SchemaFile] => [
      `cli/fixtures/shards/shard-${shard}/.shard-manifest.json`,
      'shard-manifest.schema.json',
    ]),
  ])('%s follows %s', (file, schema) => {
    expect(schemaProblem(schema, JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')))).toBeUndefined();
  });
});

describe('the run archive', () => {
  it('is refused before writing when it does not follow its schema, and nothing is written', () => {
    const bad = archive({ environment: environment({ cpu_count: 1.5 }) });
    expect(() => writeRunArchive(bad, dir)).toThrow(
      'the archive of run run_20250131_120000_abcd1234 does not follow schemas/run-archive.schema.json (/environment/cpu_count must be integer); nothing was written: a bug in the harness, which built it',
    );
    expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
  });

  it('is not read when it does not follow its schema: the message names the file and the problem', () => {
    const { filePath } = writeRunArchive(archive(), dir);
    const text = JSON.parse(fs.readFileSync(filePath, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(filePath, JSON.stringify({ ...text, status: 'done' }));
    expect(() => readRunArchive(filePath)).toThrow(
      `${filePath} is not a run archive (/status must be equal to one of the allowed values (passed, failed, interrupted, killed))`,
    );
    fs.writeFileSync(filePath, JSON.stringify({ ...text, schema_version: 2, status: 'done' }));
    expect(() => readRunArchive(filePath)).toThrow(
      `${filePath} has schema_version 2, newer than this harness (1); update the harness to read it`,
    );
  });

  it('reads back an archive of a run recorded before key metrics named their proxy and reference', () => {
    const written = writeRunArchive(archive(), dir);
    const old = JSON.parse(fs.readFileSync(written.filePath, 'utf8')) as RunArchive;
    const keyMetrics = old.key_metrics.map(({ met_reason: _reason, fault_proxy: _proxy, reference: _reference, ...rest }) => rest);
    expect(keyMetrics.length).toBeGreaterThan(0);
    fs.writeFileSync(written.filePath, JSON.stringify({ ...old, key_metrics: keyMetrics }));
    expect(readRunArchive(written.filePath).key_metrics).toEqual(keyMetrics);
  });
});

describe('the history', () => {
  const entry = (runId: string) => historyEntryOf({ ...archive(), run_id: runId }, `${runId}.json`);

  it('is not extended with an entry that does not follow its schema, and the file stays as it was', () => {
    appendToHistory(dir, entry('run_20250131_120000_abcd1234'));
    const before = fs.readFileSync(historyPath(dir), 'utf8');
    expect(() => appendToHistory(dir, { ...entry('run_20250131_130000_abcd1234'), duration_ms: -1 })).toThrow(
      'the history with run run_20250131_130000_abcd1234 does not follow schemas/benchmark-history.schema.json (/runs/1/duration_ms must be >= 0)',
    );
    expect(fs.readFileSync(historyPath(dir), 'utf8')).toBe(before);
  });

  it('that does not follow its schema is reported, and moved aside by a writer, never extended', () => {
    appendToHistory(dir, entry('run_20250131_120000_abcd1234'));
    const history = JSON.parse(fs.readFileSync(historyPath(dir), 'utf8')) as { runs: Record<string, unknown>[] };
    const edited = JSON.stringify({ ...history, runs: [{ ...history.runs[0], status: 'green' }] });
    fs.writeFileSync(historyPath(dir), edited);
    const reason =
      'it does not follow schemas/benchmark-history.schema.json: /runs/0/status must be equal to one of the allowed values (passed, failed, interrupted, killed)';
    expect(readHistory(dir).corrupt).toEqual({ reason, movedTo: null });
    const appended = appendToHistory(dir, entry('run_20250131_130000_abcd1234'), { now: () => new Date('2025-02-01T08:09:10.123Z') });
    expect(appended.corrupt).toEqual({ reason, movedTo: path.join(dir, 'benchmark_history.corrupt-20250201T080910_123Z.json') });
    expect(fs.readFileSync(appended.corrupt!.movedTo!, 'utf8')).toBe(edited);
    expect(appended.history.runs.map((run) => run.run_id)).toEqual(['run_20250131_130000_abcd1234']);
  });

  it('reads back entries written before tests_run existed', () => {
    const { tests_run: _testsRun, ...old } = entry('run_20250131_120000_abcd1234');
    fs.writeFileSync(historyPath(dir), JSON.stringify({ schema_version: 1, updated_at: '2025-01-31T12:05:00.000Z', runs: [old] }));
    const read = readHistory(dir);
    expect(read.corrupt).toBeUndefined();
    expect(read.history.runs).toEqual([old]);
  });
});

describe('the Jest outcome', () => {
  it('is refused before writing when it does not follow its schema', () => {
    const bad = { ...outcome, tests: [{ ...outcome.tests[0]!, status: 'pending' }] } as unknown as JestOutcome;
    expect(() => writeOutcome(dir, bad)).toThrow(
      'the Jest outcome does not follow schemas/jest-outcome.schema.json (/tests/0/status must be equal to one of the allowed values (passed, failed, skipped, todo))',
    );
    expect(fs.existsSync(outcomePath(dir))).toBe(false);
  });

  it('is read when it follows its schema, and taken as absent when it does not', () => {
    writeOutcome(dir, outcome);
    expect(readOutcome(dir)).toEqual(outcome);
    fs.writeFileSync(outcomePath(dir), JSON.stringify({ ...outcome, tests: [{ test_id: 'x' }] }));
    expect(readOutcome(dir)).toBeUndefined();
  });
});

describe('the shard manifest', () => {
  const manifest: ShardManifest = {
    schema_version: SHARD_MANIFEST_SCHEMA_VERSION,
    shard: { index: 2, count: 3 },
    environment: environment(),
    started_at: '2025-01-31T12:00:00.000Z',
    finished_at: '2025-01-31T12:01:00.000Z',
    marker_expression: 'benchmark',
    test_name_filter: null,
    jest_exit_code: 0,
    interrupted: false,
    outcome,
    raw_result_files: ['publish_throughput_20250131_120000_1_1_abcdef.json'],
  };

  it('is written and read back when it follows its schema, and refused before writing when it does not', () => {
    writeShardManifest(dir, manifest);
    expect(readShardManifest(dir)).toEqual(manifest);
    fs.rmSync(shardManifestPath(dir));
    expect(() => writeShardManifest(dir, { ...manifest, shard: { index: 0, count: 3 } })).toThrow(
      'the manifest of shard 0/3 does not follow schemas/shard-manifest.schema.json (/shard/index must be >= 1)',
    );
    expect(fs.existsSync(shardManifestPath(dir))).toBe(false);
  });

  it('from another machine is not merged when it does not follow its schema: the message says what is wrong', () => {
    fs.writeFileSync(shardManifestPath(dir), JSON.stringify({ ...manifest, outcome: { ...outcome, complete: 'yes' } }));
    expect(() => readShardManifest(dir)).toThrow(
      `${shardManifestPath(dir)} is not a shard manifest (/outcome must be null; /outcome/complete must be boolean; /outcome must match exactly one schema in oneOf)`,
    );
    fs.writeFileSync(shardManifestPath(dir), JSON.stringify({ ...manifest, schema_version: 2 }));
    expect(() => readShardManifest(dir)).toThrow(
      `${shardManifestPath(dir)} is not a shard manifest of schema version 1 (schema_version 2): merge shards run by this version of the harness`,
    );
  });
});
