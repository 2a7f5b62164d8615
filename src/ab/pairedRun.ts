/**
 * One paired run: the coordinator up, both sides started together, their turns announced as they
 * come, both awaited; then each side's archive read back. Ctrl-C reaches the sides themselves (one
 * process group): each stops its Jest and archives what it measured, and the comparison is made of
 * that; a second Ctrl-C kills them. SIGTERM (a cancelled CI job) is passed on to them.
 */
import { describeKept, keptRunOf, type KeepOptions, type KeptRun } from './keptRun';
import { startSide, type RunningSide, type SideExit, type SideLaunch } from './sides';
import { startTurnServer } from './turnServer';
import { SIDES, type Side, type TurnGrant } from './turnSchedule';

export interface PairedSideOutcome extends SideExit, KeptRun {
  readonly launch: SideLaunch;
  readonly logPath: string;
}

export interface PairedRunOutcome {
  readonly sides: Readonly<Record<Side, PairedSideOutcome>>;
  readonly grants: readonly TurnGrant[];
  readonly wallMs: number;
  /** A Ctrl-C or SIGTERM reached the run. */
  readonly interrupted: boolean;
}

/** `1:05`: minutes and seconds since the start. */
const elapsed = (ms: number): string => `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`;

/**
 * Runs both sides in turns; resolves when both have exited.
 * @param launches each side's launch, without the coordinator's settings (added here)
 */
export async function runPairedSides(
  launches: Readonly<Record<Side, Omit<SideLaunch, 'side'>>>,
  log: (line: string) => void,
  keep: Omit<KeepOptions, 'log'>,
): Promise<PairedRunOutcome> {
  const startedMs = Date.now();
  const server = await startTurnServer({
    onGrant: (grant) => {
      if (grant.label.startsWith('test ')) log(`bench ab: ${elapsed(grant.atMs - startedMs)} ${grant.side} ${grant.label.slice(5)}`);
    },
    onError: (message) => log(`bench ab: warning: a side's request was refused: ${message}`),
  });
  let interrupted = false;
  const running: RunningSide[] = [];
  const onSigint = () => {
    if (interrupted) {
      log('bench ab: killing both sides');
      for (const side of running) side.kill('SIGKILL');
      return;
    }
    interrupted = true;
    log('bench ab: interrupted: each side stops and archives what it measured, which is then compared (Ctrl-C again to kill them)');
  };
  const onSigterm = () => {
    interrupted = true;
    for (const side of running) side.kill('SIGTERM');
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  try {
    for (const side of SIDES) {
      running.push(
        startSide({ ...launches[side], side, env: { ...launches[side].env, BENCH_AB_TURNS: server.socketPath, BENCH_AB_SIDE: side } }),
      );
    }
    const exits = await Promise.all(
      running.map(async (side) => {
        const exit = await side.exited;
        server.exited(side.launch.side);
        log(
          `bench ab: ${elapsed(Date.now() - startedMs)} side ${side.launch.side} finished (${exit.signal ? `stopped by ${exit.signal}` : `exit ${exit.exitCode}`})`,
        );
        return exit;
      }),
    );
    const sides = Object.fromEntries(
      running.map((side, index) => [side.launch.side, outcomeOf(side, exits[index]!, { ...keep, log })]),
    ) as Record<Side, PairedSideOutcome>;
    return { sides, grants: server.schedule.grants(), wallMs: Date.now() - startedMs, interrupted };
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    await server.close();
  }
}

function outcomeOf(side: RunningSide, exit: SideExit, keep: KeepOptions): PairedSideOutcome {
  const name = `side ${side.launch.side}`;
  const kept = keptRunOf(side.launch.folder, { ...keep, log: (line) => keep.log(`bench ab: ${name}: ${line.replace(/^bench: /, '')}`) });
  keep.log(`bench ab: ${describeKept(name, kept, side.logPath)}`);
  return { ...exit, ...kept, launch: side.launch, logPath: side.logPath };
}
