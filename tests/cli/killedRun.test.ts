/**
 * Crash recovery, one state per phase a killed run can leave, built on disk as the run
 * leaves it: what it finished is archived as `killed` (or named in a folder when it cannot be),
 * the run before's set-aside results come back, nothing is deleted that no archive holds, and a
 * recovery cut short is finished by the next one. Real files in temp folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recoverKilledRun, type Recovery } from '../../src/cli/killedRun';
import { SET_ASIDE_FOLDER } from '../../src/cli/previousResults';
import { buildRunArchive, readRunArchive, type RunArchive } from '../../src/results/archive';
import { readHistory } from '../../src/results/history';
import { appendOutcome, countTests, writeOutcome, type JestOutcome, type TestOutcome } from '../../src/results/outcome';
import { startResultIndex } from '../../src/results/writtenResults';
import { RUN_MANIFEST_FILE_NAME, type RunManifest, type RunPhase } from '../../src/results/runManifest';
import { expectValid } from '../results/schemaValidator';
import { environment, rawResult, tempDir } from '../results/helpers';

const GONE_PID = 2 ** 22 + 1;
const STARTED_AT = '2026-11-25T10:00:00.123Z';

describe('recovery of a killed run', () => {
  let root: string;
  let raw: string;
  let reports: string;
  let lines: string[];
  beforeEach(() => {
    root = tempDir('killed');
    raw = path.join(root, 'raw');
    reports = path.join(root, 'reports');
    fs.mkdirSync(path.join(raw, SET_ASIDE_FOLDER), { recursive: true });
    lines = [];
    // The run before: archived long ago, its two raw results set aside by the killed run.
    for (const name of ['publish_throughput_before_1.json', '.jest-outcome.json'])
      fs.writeFileSync(path.join(raw, SET_ASIDE_FOLDER, name), `{"before":"${name}"}`);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const manifest = (phase: RunPhase, extra: Partial<RunManifest> = {}): RunManifest => {
    const value: RunManifest = {
      schema_version: 1,
      pid: GONE_PID,
      hostname: os.hostname(),
      started_at: STARTED_AT,
      phase,
      environment: environment({ fingerprint: 'feedbeef' }),
      marker_expression: 'benchmark and not slow',
      test_name_filter: null,
      reports_dir: reports,
      shard: null,
      kept_files: [],
      ...extra,
    };
    fs.writeFileSync(path.join(raw, RUN_MANIFEST_FILE_NAME), JSON.stringify(value));
    return value;
  };
  const test = (name: string, status: TestOutcome['status'] = 'passed'): TestOutcome => ({
    test_id: `benchmarks/x.bench.ts::TestX::${name}`,
    full_name: `TestX ${name}`,
    status,
    duration_ms: 5,
    failure_message: null,
  });
  /** As the reporter leaves it: the outcome written at the start, each finished test a line of its journal. */
  const leaveOutcome = (tests: TestOutcome[]) => {
    const outcome: JestOutcome = {
      schema_version: 1,
      started_at: STARTED_AT,
      updated_at: STARTED_AT,
      complete: false,
      tests: [],
      suite_errors: [],
    };
    writeOutcome(raw, outcome);
    for (const each of tests) appendOutcome(raw, { ...outcome, tests: [each] });
  };
  const leaveResult = (name: string) =>
    fs.writeFileSync(
      path.join(raw, `${name}_killed.json`),
      JSON.stringify(rawResult({ name, fingerprint: 'feedbeef', timestamp: '2026-11-25T10:00:01.000Z' })),
    );
  const recover = (): Recovery => recoverKilledRun({ rawResultsDir: raw, secrets: [], log: (line) => lines.push(line) });
  const listing = (dir = raw) => fs.readdirSync(dir).sort();
  const restoredBefore = ['.jest-outcome.json', 'publish_throughput_before_1.json'];
  const archives = () => fs.readdirSync(reports).filter((name) => name.startsWith('run_'));

  it('archives what a run killed mid-benchmarks finished as status killed, and puts the run before back', () => {
    manifest('running');
    leaveResult('publish_throughput');
    leaveResult('recovery_after_reset_peer');
    leaveOutcome([test('test_publish'), test('test_recovery', 'failed')]);
    startResultIndex(raw);

    const recovery = recover();

    expect(recovery).toMatchObject({ outcome: 'archived', movedTo: null, restored: 2 });
    const archive = readRunArchive(recovery.archivePath!);
    expect(path.basename(recovery.archivePath!)).toBe('run_20261125_100000_feedbeef.json');
    expect(archive).toMatchObject({
      status: 'killed',
      started_at: STARTED_AT,
      marker_expression: 'benchmark and not slow',
      jest_exit_code: null,
      counts: countTests([test('a'), test('b', 'failed')]),
    });
    expect(archive.environment.fingerprint).toBe('feedbeef');
    expect(archive.results.map((result) => result.name).sort()).toEqual(['publish_throughput', 'recovery_after_reset_peer']);
    expect(archive.warnings.join('\n')).toMatch(
      /^killed: the run \(pid 4194305 on this host\) stopped without saving itself; last heard of at /,
    );
    expectValid('run-archive.schema.json', JSON.parse(fs.readFileSync(recovery.archivePath!, 'utf8')));
    const history = readHistory(reports).history;
    expect(history.runs.map((run) => [run.run_id, run.status])).toEqual([['run_20261125_100000_feedbeef', 'killed']]);
    expectValid('benchmark-history.schema.json', history);
    expect(archive.tests.map((each) => each.test_id)).toEqual([test('test_publish').test_id, test('test_recovery').test_id]);
    // The folder is as it was before the killed run started: its results and outcome are in the archive.
    expect(listing()).toEqual(restoredBefore);
    expect(fs.readFileSync(path.join(raw, '.jest-outcome.json'), 'utf8')).toBe('{"before":".jest-outcome.json"}');
    expect(lines).toEqual([
      `bench: the run started ${STARTED_AT} (pid ${GONE_PID}) was killed; what it finished is archived as run_20261125_100000_feedbeef.json (status killed: 2 raw result(s), 2 test(s)); history entry added; 2 raw result file(s) of the run before put back`,
    ]);
  });

  it('archives nothing for a run killed before any benchmark finished, and puts the run before back', () => {
    manifest('running');
    leaveOutcome([test('test_publish', 'skipped')]);
    expect(recover()).toEqual({ outcome: 'nothing-finished', archivePath: null, movedTo: null, restored: 2 });
    expect(fs.existsSync(reports)).toBe(false);
    expect(listing()).toEqual(restoredBefore);
    expect(lines[0]).toMatch(
      /was killed before any benchmark finished: nothing to archive; 2 raw result file\(s\) of the run before put back$/,
    );
  });

  it('finishes setting aside undone: files half moved come back, wherever they were', () => {
    manifest('setting-aside');
    fs.renameSync(path.join(raw, SET_ASIDE_FOLDER, 'publish_throughput_before_1.json'), path.join(raw, 'publish_throughput_before_1.json'));
    expect(recover()).toMatchObject({ outcome: 'nothing-finished', restored: 1 });
    expect(listing()).toEqual(restoredBefore);
  });

  it("finishes the clean-up of a run killed after it was saved: its results stay, the run before's go (they are in its archive)", () => {
    manifest('finished');
    leaveResult('publish_throughput');
    expect(recover()).toMatchObject({ outcome: 'already-archived', restored: 0 });
    expect(listing()).toEqual(['publish_throughput_killed.json']);
  });

  it('adds the history entry of a run killed after its own archive, and never archives it twice', () => {
    const left = manifest('running');
    leaveResult('publish_throughput');
    fs.mkdirSync(reports);
    // Its own archive, whole (as a run writes it before its history and report).
    const own: RunArchive = {
      ...buildRunArchive({
        environment: left.environment,
        startedAt: new Date(left.started_at),
        finishedAt: new Date(left.started_at),
        markerExpression: null,
        testNameFilter: null,
        invokedBy: 'cli',
        jestExitCode: 0,
        interrupted: false,
        tests: [],
        suiteErrors: [],
        results: [],
        invalidResultFiles: [],
        warnings: [],
      }),
      run_id: 'run_20261125_100000_feedbeef',
    };
    fs.writeFileSync(path.join(reports, 'run_20261125_100000_feedbeef.json'), JSON.stringify(own));
    expect(recover()).toMatchObject({ outcome: 'already-archived' });
    expect(archives()).toEqual(['run_20261125_100000_feedbeef.json']);
    expect(readHistory(reports).history.runs.map((run) => [run.run_id, run.status])).toEqual([['run_20261125_100000_feedbeef', 'passed']]);
    expect(lines[0]).toMatch(
      /was killed after it wrote its archive run_20261125_100000_feedbeef\.json \(status passed\); history entry added;/,
    );
  });

  it('finishes a recovery that was itself killed after writing the killed archive: one archive, one history entry', () => {
    manifest('running');
    leaveResult('publish_throughput');
    leaveResult('recovery_after_reset_peer');
    recover();
    // Replay the state as it was right after the archive was written.
    manifest('running');
    leaveResult('publish_throughput');
    fs.mkdirSync(path.join(raw, SET_ASIDE_FOLDER));
    for (const name of restoredBefore) fs.renameSync(path.join(raw, name), path.join(raw, SET_ASIDE_FOLDER, name));
    expect(recover()).toMatchObject({ outcome: 'archived', restored: 2 });
    expect(archives()).toHaveLength(1);
    expect(readHistory(reports).history.runs).toHaveLength(1);
    expect(listing()).toEqual(restoredBefore);
  });

  it('moves the files of a run that cannot be archived to a named folder, and says why', () => {
    fs.writeFileSync(path.join(root, 'a-file'), 'x');
    manifest('running', { reports_dir: path.join(root, 'a-file', 'reports') });
    leaveResult('publish_throughput');
    leaveOutcome([test('test_publish')]);
    const recovery = recover();
    expect(recovery).toMatchObject({ outcome: 'moved', archivePath: null, restored: 2 });
    expect(recovery.movedTo).toBe(path.join(raw, `killed-run-20261125_100000-${GONE_PID}`));
    expect(listing(recovery.movedTo!)).toEqual(['.jest-outcome.json', '.jest-outcome.jsonl', 'publish_throughput_killed.json']);
    expect(listing()).toEqual([...restoredBefore, path.basename(recovery.movedTo!)].sort());
    expect(lines[0]).toMatch(
      /was killed and its files could not be archived \(not archived: .*ENOTDIR.*\); 3 file\(s\) moved to .*killed-run-20261125_100000-4194305; 2 raw result file\(s\) of the run before put back$/,
    );
  });

  it('archives the raw results it can read and names the folder holding the files that are not raw results', () => {
    manifest('running');
    leaveResult('publish_throughput');
    fs.writeFileSync(path.join(raw, 'broken_result.json'), '{"name": ');
    const recovery = recover();
    expect(recovery.outcome).toBe('archived');
    expect(readRunArchive(recovery.archivePath!).invalid_result_files.map((file) => file.file)).toEqual(['broken_result.json']);
    expect(listing(recovery.movedTo!)).toEqual(['broken_result.json']);
    expect(lines[0]).toContain(`1 file(s) that are not raw results moved to ${recovery.movedTo}`);
  });

  it('leaves the raw results a --keep-results run kept out of its archive, and in place', () => {
    manifest('running', { kept_files: ['publish_throughput_kept.json'] });
    fs.writeFileSync(path.join(raw, 'publish_throughput_kept.json'), JSON.stringify(rawResult({ name: 'publish_throughput' })));
    leaveResult('recovery_after_reset_peer');
    const archive = readRunArchive(recover().archivePath!);
    expect(archive.results.map((result) => result.name)).toEqual(['recovery_after_reset_peer']);
    expect(listing()).toContain('publish_throughput_kept.json');
  });

  it('without a run manifest (an older harness), moves the loose files whose run cannot be told and puts the set-aside ones back', () => {
    leaveResult('publish_throughput');
    const recovery = recover();
    expect(recovery).toMatchObject({ outcome: 'moved', restored: 2 });
    expect(path.basename(recovery.movedTo!)).toMatch(/^unattributed-\d{8}_\d{6}-\d+$/);
    expect(listing(recovery.movedTo!)).toEqual(['publish_throughput_killed.json']);
    expect(listing()).toEqual([...restoredBefore, path.basename(recovery.movedTo!)].sort());
  });

  it('does nothing, says nothing, when the last run ended by itself; removes only temp files of writers that are gone', () => {
    fs.rmSync(path.join(raw, SET_ASIDE_FOLDER), { recursive: true });
    leaveResult('publish_throughput');
    fs.writeFileSync(path.join(raw, `x.json.${GONE_PID}.0a0b0c0d.tmp`), '{"half');
    fs.writeFileSync(path.join(raw, `y.json.${process.pid}.0a0b0c0d.tmp`), '{"being written');
    expect(recover()).toEqual({ outcome: 'none', archivePath: null, movedTo: null, restored: 0 });
    expect(lines).toEqual([]);
    expect(listing()).toEqual(['publish_throughput_killed.json', `y.json.${process.pid}.0a0b0c0d.tmp`]);
  });
});
