/**
 * One phase of a consume session: the consumers start, warm up, the counters are read at each
 * window's edge (ending early on a steady or dry queue when asked), the account is closed when
 * asked, and the consumers are cancelled. A failure at any step closes the session first.
 */
import { WorkerError } from '../errors';
import { elapsedMs, nowNs } from '../measure/clock';
import { closeAccount, type AccountOutcome } from './consumeAccount';
import { ConsumeControl } from './consumeBoard';
import { consumeWindow, isSteady, type ConsumeWindow } from './consumeRates';
import type { ConsumeSessionRuntime } from './consumeSessionRuntime';

export interface PhaseOutcome {
  readonly phase: number;
  /** Consumers started (phase opened) to every consumer consuming. */
  readonly startupMs: number;
  readonly windows: readonly ConsumeWindow[];
  /**
   * How the windows ended: `steady` (the last ones agreed, before the most asked for), `dry` (the
   * queue ran dry in one of them: the figure is producer-bound whatever follows, before the most
   * asked for) or `max` (all asked for).
   */
  readonly windowsEnded: 'steady' | 'dry' | 'max';
  /** Present when the phase closed the session's account (see `runPhase`). */
  readonly account?: AccountOutcome;
}

export interface PhaseOptions {
  readonly account?: boolean;
  readonly accountBoundMs?: number;
  /**
   * End before `windows`, after `minWindows` at least, once the last `minWindows` windows' rates
   * agree within `withinPercent` (consumeRates.ts isSteady), or once a window ran dry.
   */
  readonly steady?: { readonly minWindows: number; readonly withinPercent: number };
}

/** Runs one phase of `windows` windows on an open session (see ConsumeSession.runPhase). */
export async function runConsumePhase(session: ConsumeSessionRuntime, windows: number, options: PhaseOptions): Promise<PhaseOutcome> {
  if (session.state !== 'open') throw new WorkerError('the consume session is closed; open a new one');
  if (!Number.isInteger(windows) || windows < 0) throw new RangeError(`windows must be a whole number; got ${windows}`);
  if (options.account && !session.accountable)
    throw new WorkerError('the account must be exact: only in the first phase, before anything else consumed the queue');
  session.accountable = false;
  session.phase += 1;
  const { phase, board, workload } = session;
  const consumerThreads = workload.consumerThreads;
  const openedNs = nowNs();
  board.raise(ConsumeControl.PHASE, phase);
  const startBoundMs = 30_000 + 50 * workload.consumers;
  if (!(await board.waitFor(ConsumeControl.CONSUMING, consumerThreads * phase, startBoundMs, ConsumeControl.CONSUMERS_FAILED)))
    throw await session.failure(`phase ${phase}: consumers did not start within ${startBoundMs} ms`);
  const startupMs = elapsedMs(openedNs, nowNs());
  // The consumers fail the phase at once if they fail: the waits below wake on CONSUMERS_FAILED.
  await board.waitFor(ConsumeControl.CONSUMERS_FAILED, 1, workload.warmupMs);
  await session.check(`phase ${phase} (warm-up)`);
  const { measured, windowsEnded } = await measureWindows(session, windows, options.steady);
  const account = options.account ? await closeAccount(board, () => session.purgeQueue(), options.accountBoundMs ?? 300_000) : undefined;
  if (typeof account === 'string') throw await session.failure(account);
  board.raise(ConsumeControl.PHASE_END, phase);
  if (!(await board.waitFor(ConsumeControl.CANCELLED, consumerThreads * phase, 15_000)))
    throw await session.failure(`phase ${phase}: consumers were not cancelled within 15000 ms`);
  await session.check(`phase ${phase} (cancel)`);
  return { phase, startupMs, windows: measured, windowsEnded, ...(account ? { account } : {}) };
}

/** Measures up to `windows` consecutive windows, ending early only when the phase asked for it. */
async function measureWindows(
  session: ConsumeSessionRuntime,
  windows: number,
  steady: PhaseOptions['steady'],
): Promise<{ measured: ConsumeWindow[]; windowsEnded: PhaseOutcome['windowsEnded'] }> {
  const { board, workload, phase } = session;
  const samples = session.sampler?.samples ?? [];
  const measured: ConsumeWindow[] = [];
  let edge = session.readEdge();
  for (let window = 0; window < windows; window += 1) {
    await board.waitFor(ConsumeControl.CONSUMERS_FAILED, 1, workload.windowMs);
    const next = session.readEdge();
    await session.check(`phase ${phase}, window ${window + 1}`);
    measured.push(consumeWindow(edge, next, workload.messageSizeBytes, samples));
    edge = next;
    // Ending early (before the most asked for, after the least) is only for a phase that asked for it.
    if (!steady || window + 1 >= windows) continue;
    const rates = measured.map((each) => each.consumeRateMsgsPerSec);
    if (isSteady(rates, steady.minWindows, steady.withinPercent)) return { measured, windowsEnded: 'steady' };
    // A window that ran dry makes the figure producer-bound (consumeRates.ts boundOf): no later
    // window can make it a clean consume rate, so the least asked for is enough.
    if (window + 1 >= steady.minWindows && measured.some((each) => each.depth.ranDry === true)) return { measured, windowsEnded: 'dry' };
  }
  return { measured, windowsEnded: 'max' };
}
