/**
 * What the crash test reads on disk between kills: which run each raw result and archive belongs
 * to (the tag the crash fixture writes into every result's notes), where a killed run had got to
 * when it was killed, and whether the history still holds every earlier entry unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunArchive } from '../../src/results/archive';
import type { History } from '../../src/results/history';
import type { RunManifest } from '../../src/results/runManifest';
import { schemaProblem } from '../../src/results/schemas';

export interface TaggedFile {
  readonly file: string;
  readonly tag: string;
}

/** The run tag of a raw result (`crash-run <tag>` in its notes). */
export function tagOf(result: { readonly notes?: readonly string[] }): string | undefined {
  return result.notes?.find((note) => note.startsWith('crash-run '))?.slice('crash-run '.length);
}

/** Raw result files directly in `dir`, with their run's tag (from the name the fixture gives them). */
export function rawFilesIn(dir: string): TaggedFile[] {
  return fs
    .readdirSync(dir)
    .map((file) => ({ file, tag: /^(?:publish_throughput|recovery_after_reset_peer)_(.+)_\d\.json$/.exec(file)?.[1] }))
    .filter((entry): entry is TaggedFile => entry.tag !== undefined);
}

export interface ArchiveFound {
  readonly file: string;
  readonly archive: RunArchive;
  /** The tags of its results (a run's archive has one). */
  readonly tags: readonly string[];
}

export function archivesIn(reportsDir: string): ArchiveFound[] {
  return fs
    .readdirSync(reportsDir)
    .filter((name) => /^run_\d{8}_\d{6}_[0-9a-f]{8}(_\d+)?\.json$/.test(name))
    .sort()
    .map((file) => {
      const archive = JSON.parse(fs.readFileSync(path.join(reportsDir, file), 'utf8')) as RunArchive;
      return { file, archive, tags: [...new Set(archive.results.map((result) => tagOf(result) ?? '?'))] };
    });
}

/** The history, checked: it parses, follows its schema, and each entry's archive is there. Throws saying what is wrong. */
export function readCheckedHistory(reportsDir: string): History {
  const file = path.join(reportsDir, 'benchmark_history.json');
  const history = JSON.parse(fs.readFileSync(file, 'utf8')) as History;
  const problem = schemaProblem('benchmark-history.schema.json', history);
  if (problem) throw new Error(`${file} does not follow its schema: ${problem}`);
  for (const run of history.runs)
    if (!fs.existsSync(path.join(reportsDir, run.archive_file)))
      throw new Error(`history entry ${run.run_id}: ${run.archive_file} is missing`);
  return history;
}

export function readManifest(rawDir: string): RunManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(rawDir, '.bench-run.json'), 'utf8')) as RunManifest;
  } catch {
    return undefined;
  }
}

/**
 * Where a killed run had got to, read from what it left (its manifest, its raw results, its
 * archive and history entry) and what it printed.
 */
export function phaseReached(input: { rawDir: string; reportsDir: string; pid: number; tag: string; output: string }): string {
  if (/── amqp-bench run_/.test(input.output)) return 'done (summary printed)';
  const manifest = readManifest(input.rawDir);
  if (!manifest || manifest.pid !== input.pid) {
    if (/bench: environment /.test(input.output)) return 'environment captured';
    return /bench: (took over|the run started)/.test(input.output) ? 'lock and recovery' : 'boot, preflight and lock';
  }
  if (manifest.phase === 'setting-aside') return 'setting old results aside';
  if (manifest.phase === 'finished') return 'clean-up after saving';
  if (manifest.phase === 'restoring') return 'putting old results back';
  const own = archivesIn(input.reportsDir).find((found) => found.archive.started_at === manifest.started_at);
  if (own) {
    const history = JSON.parse(fs.readFileSync(path.join(input.reportsDir, 'benchmark_history.json'), 'utf8')) as History;
    return history.runs.some((run) => run.run_id === own.archive.run_id) ? 'report' : 'history';
  }
  const results = rawFilesIn(input.rawDir).filter((file) => file.tag === input.tag).length;
  if (results === 0) return 'jest starting';
  const outcome = readOutcome(input.rawDir);
  return outcome?.complete ? 'collect and archive' : `benchmarks (${results} of 5 written)`;
}

function readOutcome(rawDir: string): { complete: boolean } | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(rawDir, '.jest-outcome.json'), 'utf8')) as { complete: boolean };
  } catch {
    return undefined;
  }
}

/**
 * Every file the killed run may have been writing is whole (each is written through a temp file
 * and a rename): JSON parses (archives and the history follow their schemas), charts and junit.xml
 * end with their closing tag, the report with its last line. Returns the files that are not, with why.
 */
export function partialFiles(rawDir: string, reportsDir: string): string[] {
  const problems: string[] = [];
  const check = (file: string, problem: (text: string) => string | undefined) => {
    const found = problem(fs.readFileSync(file, 'utf8'));
    if (found) problems.push(`${file}: ${found}`);
  };
  const json = (text: string) => {
    try {
      JSON.parse(text);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  for (const name of fs.readdirSync(rawDir).filter((entry) => entry.endsWith('.json'))) check(path.join(rawDir, name), json);
  for (const name of fs.existsSync(reportsDir) ? fs.readdirSync(reportsDir) : []) {
    const file = path.join(reportsDir, name);
    if (/^run_.*\.json$/.test(name))
      check(file, (text) => json(text) ?? schemaProblem('run-archive.schema.json', JSON.parse(text) as unknown));
    else if (name === 'benchmark_history.json')
      check(file, (text) => json(text) ?? schemaProblem('benchmark-history.schema.json', JSON.parse(text) as unknown));
    else if (name.endsWith('.svg')) check(file, (text) => (/<\/svg>\s*$/.test(text) ? undefined : 'no closing </svg>'));
    else if (name === 'junit.xml') check(file, (text) => (/<\/testsuites>\s*$/.test(text) ? undefined : 'no closing </testsuites>'));
    else if (name === 'LATEST_REPORT.md')
      check(file, (text) => (/\nGenerated .* in the history\)\.\s*$/.test(text) ? undefined : 'no last line'));
  }
  return problems;
}
