/**
 * The sustained consume measurement: open a session, run one phase (warm-up, then
 * `workload.rounds` consecutive windows, then an account of every message: consumeAccount.ts), close
 * (always), and hand back the windows and what every thread reported.
 */
import type { ClientSpec } from '../client/api';
import type { ConsumeWorkload } from './consumePlan';
import { openConsumeSession, type ConsumeSessionReport, type PhaseOutcome } from './consumeSession';

export interface SustainedConsumeOptions {
  /** Broker URL (direct). */
  readonly url: string;
  readonly client: ClientSpec;
  readonly workload: ConsumeWorkload;
  /** Bound on the account after the windows (it also ends after 10 s without a delivery). @default 300000 */
  readonly accountBoundMs?: number;
}

export interface SustainedConsumeOutcome {
  readonly workload: ConsumeWorkload;
  readonly phase: PhaseOutcome;
  readonly report: ConsumeSessionReport;
  readonly queue: string;
  /** Prefix of every connection the session opened (a leak check looks for it). */
  readonly connectionPrefix: string;
}

/**
 * Measures `workload` for `client`.
 * @throws WorkerError when a thread fails or a bound passes (the session is closed first).
 */
export async function measureSustainedConsume(options: SustainedConsumeOptions): Promise<SustainedConsumeOutcome> {
  const session = await openConsumeSession({ url: options.url, client: options.client, workload: options.workload });
  let phase: PhaseOutcome;
  let report: ConsumeSessionReport;
  try {
    const { rounds, minRounds, steadyWithinPercent } = options.workload;
    phase = await session.runPhase(rounds, {
      account: true,
      accountBoundMs: options.accountBoundMs ?? 300_000,
      ...(minRounds < rounds ? { steady: { minWindows: minRounds, withinPercent: steadyWithinPercent } } : {}),
    });
  } finally {
    report = await session.close();
  }
  return { workload: options.workload, phase, report, queue: session.queue, connectionPrefix: session.connectionPrefix };
}
