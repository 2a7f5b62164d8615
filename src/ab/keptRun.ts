/**
 * What a side of a paired run kept once it exited: the archive it wrote, or, when it died before
 * writing one (a second Ctrl-C kills the sides, a crash, the kernel's OOM killer), the archive
 * recovered from what it left in its raw-results folder. That is the crash recovery every
 * `bench run` does for the run before it (src/cli/killedRun.ts), done at once by `bench ab`: a
 * measurement a side finished is never lost, and is compared like any other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeError } from '../errors';
import { openRunSession } from '../cli/runSession';
import { listRunArchives, readRunArchive, type RunArchive } from '../results/archive';
import { logTail } from './sides';

export interface KeptRun {
  /** Null when the side finished nothing (it stopped before its first measurement). */
  readonly archive: RunArchive | null;
  readonly archivePath: string | null;
  /** `written` by the side itself, `recovered` from what it left, or `none`. */
  readonly how: 'written' | 'recovered' | 'none';
  /** Why there is no archive although there may be one (unreadable, not recoverable); null otherwise. */
  readonly problem: string | null;
}

export interface KeepOptions {
  readonly secrets: readonly string[];
  /** The folder the two sides claim their run ids in (BENCH_RUN_ID_CLAIMS), so a recovered one is distinct too. */
  readonly runIdClaimsDir: string | null;
  readonly log: (line: string) => void;
}

/** The run a side kept in `folder` (its `reports/` and `raw/`), recovered from `raw/` when it wrote none. */
export function keptRunOf(folder: string, options: KeepOptions): KeptRun {
  const reportsDir = path.join(folder, 'reports');
  const latest = listRunArchives(reportsDir).at(-1);
  if (latest) {
    try {
      return { archive: readRunArchive(latest), archivePath: latest, how: 'written', problem: null };
    } catch (error) {
      return { archive: null, archivePath: latest, how: 'none', problem: describeError(error) };
    }
  }
  const rawResultsDir = path.join(folder, 'raw');
  // Never started a run: nothing there to recover.
  if (!fs.existsSync(rawResultsDir)) return { archive: null, archivePath: null, how: 'none', problem: null };
  try {
    const session = openRunSession({ rawResultsDir, secrets: options.secrets, log: options.log, runIdClaimsDir: options.runIdClaimsDir });
    session.close();
    const recovered = session.recovery.archivePath;
    if (recovered === null) return { archive: null, archivePath: null, how: 'none', problem: null };
    return { archive: readRunArchive(recovered), archivePath: recovered, how: 'recovered', problem: null };
  } catch (error) {
    return {
      archive: null,
      archivePath: null,
      how: 'none',
      problem: `its leftovers in ${rawResultsDir} could not be recovered: ${describeError(error)}`,
    };
  }
}

/** One line saying what a side kept: which run (its id tells the two sides apart), how it ended, where. */
export function describeKept(name: string, kept: KeptRun, logPath: string): string {
  const { archive } = kept;
  if (!archive) {
    // Its log's last line says why (stopped before its first measurement, a set-up that failed).
    const last = logTail(logPath, 1);
    return `${name} kept nothing${kept.problem ? `: ${kept.problem}` : ': it finished no measurement'}${last ? `; its log ends "${last}"` : ''} (its log: ${logPath})`;
  }
  const counts = archive.counts;
  const what = `${archive.status}: ${counts.passed} test(s) passed, ${counts.failed} failed; ${archive.results.length} result(s)`;
  return kept.how === 'recovered'
    ? `${name} died before it archived its run; what it finished is recovered as ${archive.run_id} (${what}) in ${kept.archivePath}`
    : `${name} kept ${archive.run_id} (${what}) in ${kept.archivePath}`;
}
