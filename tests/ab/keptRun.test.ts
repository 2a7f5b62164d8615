/**
 * What a side of a paired run kept, laid out on disk as a side leaves it: the archive it wrote; or,
 * when it was killed before writing one, its finished results recovered (status `killed`) under an
 * id of its own; or nothing, said as such. Real files in temp folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeKept, keptRunOf, type KeepOptions } from '../../src/ab/keptRun';
import { buildRunArchive, writeRunArchive } from '../../src/results/archive';
import type { JestOutcome } from '../../src/results/outcome';
import { RUN_MANIFEST_FILE_NAME, type RunManifest } from '../../src/results/runManifest';
import { environment, rawResult, tempDir } from '../results/helpers';

/** A pid above Linux's highest: no process has it, so the side that held it is gone. */
const GONE_PID = 2 ** 22 + 1;
const STARTED_AT = '2026-11-27T10:00:00.123Z';
const FINGERPRINT = 'feedbeef';

/** A side's own archive of a run interrupted after one result, started in the same second as the killed one. */
const interruptedArchive = () =>
  buildRunArchive({
    environment: environment({ fingerprint: FINGERPRINT }),
    startedAt: new Date(STARTED_AT),
    finishedAt: new Date(STARTED_AT),
    markerExpression: 'benchmark',
    testNameFilter: null,
    invokedBy: 'cli',
    jestExitCode: null,
    interrupted: true,
    tests: [],
    suiteErrors: [],
    results: [rawResult({ name: 'publish_throughput', fingerprint: FINGERPRINT })],
    invalidResultFiles: [],
    warnings: [],
  });

describe('what a side of a paired run kept', () => {
  let root: string;
  let side: string;
  let lines: string[];
  let keep: KeepOptions;
  beforeEach(() => {
    root = tempDir('kept');
    side = path.join(root, 'A');
    lines = [];
    keep = { secrets: [], runIdClaimsDir: path.join(root, '.run-ids'), log: (line) => lines.push(line) };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** What a side killed mid-run leaves in its raw folder: its manifest, one finished test and its result. */
  const leaveKilledSide = () => {
    const raw = path.join(side, 'raw');
    fs.mkdirSync(raw, { recursive: true });
    const manifest: RunManifest = {
      schema_version: 1,
      pid: GONE_PID,
      hostname: os.hostname(),
      started_at: STARTED_AT,
      phase: 'running',
      environment: environment({ fingerprint: FINGERPRINT }),
      marker_expression: 'benchmark',
      test_name_filter: null,
      reports_dir: path.join(side, 'reports'),
      shard: null,
      kept_files: [],
    };
    fs.writeFileSync(path.join(raw, RUN_MANIFEST_FILE_NAME), JSON.stringify(manifest));
    const outcome: JestOutcome = {
      schema_version: 1,
      started_at: STARTED_AT,
      updated_at: STARTED_AT,
      complete: false,
      tests: [
        {
          test_id: 'benchmarks/x.bench.ts::TestX::test_x[plain]',
          full_name: 'TestX test_x[plain]',
          status: 'passed',
          duration_ms: 5,
          failure_message: null,
        },
      ],
      suite_errors: [],
    };
    fs.writeFileSync(path.join(raw, '.jest-outcome.json'), JSON.stringify(outcome));
    fs.writeFileSync(
      path.join(raw, 'publish_throughput_killed.json'),
      JSON.stringify(rawResult({ name: 'publish_throughput', fingerprint: FINGERPRINT, timestamp: '2026-11-27T10:00:01.000Z' })),
    );
  };

  it('recovers a killed side’s finished results as its run (status killed), under an id the other side does not hold', () => {
    // The other side, same build, same second: it archived first and claimed the plain id.
    const other = writeRunArchive(interruptedArchive(), path.join(root, 'B', 'reports'), [], keep.runIdClaimsDir);
    leaveKilledSide();
    const kept = keptRunOf(side, keep);
    expect(kept).toMatchObject({ how: 'recovered', problem: null });
    expect(kept.archive).toMatchObject({ status: 'killed', counts: { passed: 1 }, run_id: `${other.archive.run_id}_2` });
    expect(kept.archive!.results).toHaveLength(1);
    expect(kept.archivePath).toBe(path.join(side, 'reports', `${other.archive.run_id}_2.json`));
    // The recovery says so in the side's name; nothing of the run is left to recover twice.
    expect(lines.some((line) => line.startsWith('bench: ') && line.includes('was killed; what it finished is archived'))).toBe(true);
    expect(fs.existsSync(path.join(side, 'raw', RUN_MANIFEST_FILE_NAME))).toBe(false);
    expect(describeKept('side A', kept, '/x/A/side.log')).toBe(
      `side A died before it archived its run; what it finished is recovered as ${other.archive.run_id}_2 (killed: 1 test(s) passed, 0 failed; 1 result(s)) in ${kept.archivePath}`,
    );
  });

  it('takes the archive the side wrote itself', () => {
    leaveKilledSide();
    const written = writeRunArchive(interruptedArchive(), path.join(side, 'reports'));
    const kept = keptRunOf(side, keep);
    expect(kept).toMatchObject({ how: 'written', archivePath: written.filePath, problem: null });
    expect(describeKept('side A', kept, '/x/A/side.log')).toBe(
      `side A kept ${written.archive.run_id} (interrupted: 0 test(s) passed, 0 failed; 1 result(s)) in ${written.filePath}`,
    );
    expect(lines).toEqual([]);
  });

  it('says a side that finished nothing kept nothing, pointing at its log', () => {
    const kept = keptRunOf(side, keep);
    expect(kept).toEqual({ archive: null, archivePath: null, how: 'none', problem: null });
    // Nothing created for a side that never started a run.
    expect(fs.existsSync(path.join(side, 'raw'))).toBe(false);
    expect(describeKept('side A', kept, path.join(side, 'side.log'))).toBe(
      `side A kept nothing: it finished no measurement (its log: ${path.join(side, 'side.log')})`,
    );
    // Its log's last line says why.
    fs.mkdirSync(side, { recursive: true });
    fs.writeFileSync(path.join(side, 'side.log'), 'bench: preflight passed\nbench: the embedded fault proxy did not start within 15 s\n');
    expect(describeKept('side A', kept, path.join(side, 'side.log'))).toBe(
      `side A kept nothing: it finished no measurement; its log ends "bench: the embedded fault proxy did not start within 15 s" (its log: ${path.join(side, 'side.log')})`,
    );
  });
});
