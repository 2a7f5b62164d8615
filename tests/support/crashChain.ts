/**
 * One chain of the crash test (tests/cli/crash.e2e.test.ts): in its own folders, a short run is
 * killed (SIGKILL to its process group) at a seeded random moment within a chosen phase, then a
 * short run must start without a hand and finish, and the disk is checked: the history parses
 * with every earlier entry unchanged, whatever the killed run left is in exactly one archive (its
 * own) or a named folder, and no archive holds results of two runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { killGroup, seededRandom, sleep, startBench, waitForEntry, waitForOutput, type BenchProcess } from './benchProcess';
import { archivesIn, partialFiles, phaseReached, rawFilesIn, readCheckedHistory, readManifest } from './crashLedger';

const CONFIG = path.resolve(__dirname, '../cli/fixtures/crash-bench/jest.config.js');
/** Any one run, killed or not, is over well within this. */
const RUN_BOUND_MS = 30_000;

export type Target = 'start-up' | 'jest' | 'benchmarks' | 'archive' | 'history' | 'report' | 'recovery';
export const TARGETS: readonly Target[] = ['start-up', 'jest', 'benchmarks', 'archive', 'history', 'report', 'recovery'];

/** The recovery lines of src/cli/killedRun.ts, by what they say became of the killed run. */
const RECOVERY_LINES: readonly [string, string][] = [
  ['archived as killed', '^bench: the run started .* was killed; what it finished is archived as'],
  [
    'had archived itself (killed in its history, report or clean-up)',
    '^bench: the run started .* was killed after it (wrote its archive|was saved)',
  ],
  ['had finished no benchmark (nothing to archive)', '^bench: the run started .* was killed (before any benchmark finished|while it put)'],
  ['files moved to a named folder', '^bench: (the run started .* could not be archived|a run was killed and left raw results)'],
];

export interface Kill {
  readonly target: Target;
  readonly tag: string;
  /** Where the run had got to, read from what it left. */
  readonly reached: string;
}

export class CrashChain {
  readonly raw: string;
  readonly reports: string;
  readonly kills: Kill[] = [];
  /** Runs that finished before their kill moment came (not counted as kills). */
  missed = 0;
  nextRunsFinished = 0;
  /** Runs that started (took the lock, recovered) right after a kill: the next run, or the next kill's run. */
  startedAfterKill = 0;
  /** How the next runs said they accounted for the killed runs (one recovery line each). */
  readonly accounted = new Map<string, number>();
  private readonly random: () => number;
  private runs = 0;

  constructor(
    root: string,
    private readonly name: string,
    seed: number,
  ) {
    this.raw = path.join(root, 'raw');
    this.reports = path.join(root, 'reports');
    this.random = seededRandom(seed);
  }

  /** The first run, so every kill has a run before it whose results are set aside. */
  async begin(): Promise<void> {
    await this.completeRun(this.tag('r'));
  }

  /** One kill (two for `recovery`: a run is left behind, and the next one killed while it archives it), then the checks. */
  async cycle(target: Target): Promise<void> {
    const history = readCheckedHistory(this.reports).runs;
    const killedNow: Kill[] = [];
    if (target === 'recovery') {
      const first = await this.killedRun(this.tag('k'), 'benchmarks');
      if (first) killedNow.push(first);
    }
    const kill = await this.killedRun(this.tag('k'), target);
    if (kill) killedNow.push(kill);
    else this.missed += 1;
    // Killed while it archived the run killed before it: it had started, by itself.
    if (target === 'recovery' && killedNow.length === 2) this.startedAfterKill += 1;
    // As the kill left them: every raw result, archive, history, report, chart whole, old or new.
    expect(partialFiles(this.raw, this.reports)).toEqual([]);
    const leftBehind = rawFilesIn(this.raw).filter((file) => killedNow.some((killed) => killed.tag === file.tag));
    const manifest = readManifest(this.raw);

    const nextTag = this.tag('n');
    const output = await this.completeRun(nextTag);
    this.nextRunsFinished += 1;
    if (killedNow.length > 0) this.startedAfterKill += 1;

    expect(output).not.toMatch(/another bench run is using/);
    const after = readCheckedHistory(this.reports).runs;
    expect(after.slice(0, history.length)).toEqual(history);
    expect(new Set(after.map((entry) => entry.run_id)).size).toBe(after.length);
    this.expectNoMixing(nextTag);
    for (const file of leftBehind)
      expect({ file: file.file, accounted: this.accountedFor(file.file, file.tag) }).toEqual({ file: file.file, accounted: true });
    if (manifest) expect(output).toContain(`bench: the run started ${manifest.started_at}`);
    for (const [how, pattern] of RECOVERY_LINES)
      this.accounted.set(how, (this.accounted.get(how) ?? 0) + (output.match(new RegExp(pattern, 'gm')) ?? []).length);
    // Nothing of the killed run's bookkeeping is left: no manifest, no set-aside folder, no lock.
    expect(fs.readdirSync(this.raw).filter((name) => name.startsWith('.'))).toEqual(['.jest-outcome.json']);
    this.kills.push(...killedNow);
  }

  private tag(kind: 'r' | 'k' | 'n'): string {
    this.runs += 1;
    return `${this.name}${kind}${this.runs}`;
  }

  private start(tag: string): BenchProcess {
    return startBench(['run', '--jest-config', CONFIG, '--no-broker'], {
      BENCH_RAW_DIR: this.raw,
      BENCH_REPORTS_DIR: this.reports,
      CRASH_RUN_TAG: tag,
    });
  }

  /** A run that must start and finish by itself, within the bound. */
  private async completeRun(tag: string): Promise<string> {
    const run = this.start(tag);
    const timer = setTimeout(() => void killGroup(run), RUN_BOUND_MS);
    const code = await run.exited;
    clearTimeout(timer);
    if (code !== 0) throw new Error(`run ${tag} did not finish by itself (exit ${code}):\n${run.output()}`);
    return run.output();
  }

  /** Starts a run and kills its group at a moment within `target`; undefined when it finished first. */
  private async killedRun(tag: string, target: Target): Promise<Kill | undefined> {
    const run = this.start(tag);
    const triggered = await this.trigger(run, target, tag);
    await killGroup(run);
    if (!triggered || (await run.exited) === 0) return undefined;
    return {
      target,
      tag,
      reached: phaseReached({ rawDir: this.raw, reportsDir: this.reports, pid: run.child.pid!, tag, output: run.output() }),
    };
  }

  private async trigger(run: BenchProcess, target: Target, tag: string): Promise<boolean> {
    const soon = (maxMs: number) => sleep(Math.floor(this.random() * maxMs));
    const after = async (seen: Promise<boolean>, maxMs: number) => (await seen) && (await soon(maxMs), true);
    switch (target) {
      case 'start-up':
        return after(Promise.resolve(true), 900);
      case 'jest':
        return after(waitForOutput(run, /^bench: jest --selectProjects/m, RUN_BOUND_MS), 500);
      case 'benchmarks':
        return after(waitForEntry(run, this.raw, new RegExp(`_${tag}_\\d\\.json$`), RUN_BOUND_MS), 160);
      case 'archive':
        // From Jest's last line: its exit, the collection, the archive.
        return after(waitForOutput(run, /^Ran all test suites/m, RUN_BOUND_MS), 400);
      case 'history':
        return waitForEntry(run, this.reports, /^benchmark_history\.json\./, RUN_BOUND_MS);
      case 'report':
        return waitForEntry(run, this.reports, /^(LATEST_REPORT\.md|chart-).*\.tmp$/, RUN_BOUND_MS);
      case 'recovery':
        // The killed run before is being archived by this one.
        return waitForEntry(run, this.reports, /^run_/, RUN_BOUND_MS);
    }
  }

  /** No archive holds results of two runs; no run's results are in two archives; the folder holds the last run's only. */
  private expectNoMixing(lastTag: string): void {
    const archives = archivesIn(this.reports);
    expect(archives.filter((found) => found.tags.length > 1).map((found) => [found.file, found.tags])).toEqual([]);
    const tags = archives.flatMap((found) => found.tags);
    expect(tags.filter((tag, index) => tags.indexOf(tag) !== index)).toEqual([]);
    expect([...new Set(rawFilesIn(this.raw).map((file) => file.tag))]).toEqual([lastTag]);
  }

  /** The raw result `file` of the killed run `tag` is in that run's archive, or in a named folder. */
  private accountedFor(file: string, tag: string): boolean {
    const key = file.replace(`_${tag}_`, '_').replace(/\.json$/, '');
    const archived = archivesIn(this.reports).some(
      (found) =>
        found.tags[0] === tag && found.archive.results.some((result) => `${result.name}_${String(result.parameters.threads)}` === key),
    );
    const named = fs
      .readdirSync(this.raw)
      .some((folder) => folder.startsWith('killed-run-') && fs.existsSync(path.join(this.raw, folder, file)));
    return archived || named;
  }
}
