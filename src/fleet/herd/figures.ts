/**
 * The figures of a reconnect herd (pure). Attempts are what the broker side sees: every TCP
 * connection the fault proxy accepted after the drop (each agent has its own proxy entry, so its
 * attempts are its own), counted per 100 ms from the drop; a failed attempt is one the proxy could
 * not take to the broker (the node was down). A connection is back when its consumer received the
 * probe published to its queue after the drop ("consumes again"), timed by the agent on the
 * machine's one monotonic clock.
 */

import { round3 } from '../../measure/round';

/** Attempts are counted in bins of this many ms from the drop. */
export const BIN_MS = 100;

/** One connection the proxy saw: when it opened (ns) and whether it reached the broker. */
export interface SeenConnection {
  readonly openedAtNs: bigint;
  /** False when the proxy could not connect it to the broker. */
  readonly reachedBroker: boolean;
}

/** One herd connection as its agent recorded it (ns, monotonic; null: never). */
export interface HerdConnectionTimes {
  readonly name: string;
  readonly faultNs: bigint | null;
  readonly consumedAgainNs: bigint | null;
}

export interface HerdFigures {
  readonly connections: number;
  /** Attempts per bin from the drop: index k covers [k·100, (k+1)·100) ms. */
  readonly attemptsPerBin: readonly number[];
  readonly attempts: number;
  readonly failedAttempts: number;
  /** The largest bin, and where it starts (ms from the drop). */
  readonly peakAttempts: number;
  readonly peakAtMs: number | null;
  /** The peak bin as a share of the connections (1 = every connection in one 100 ms). */
  readonly peakShare: number;
  /** From the drop to the last connection consuming again; null when one never did. */
  readonly allBackMs: number | null;
  readonly backMs: { readonly p50: number | null; readonly p90: number | null; readonly max: number | null };
  readonly neverBack: number;
  /**
   * When the attempts came, ms from the drop: the first, the 10th, 50th and 90th percentiles, the
   * last; `p10ToP90` is the spread of the middle 80 % (a fixed delay: one bin wide). Null: no attempt.
   */
  readonly attemptMomentsMs: {
    readonly first: number;
    readonly p10: number;
    readonly p50: number;
    readonly p90: number;
    readonly last: number;
    readonly p10ToP90: number;
  } | null;
}

/** A burst: more than this share of the herd's connections attempting within one 100 ms bin. @default 0.5 */
export const DEFAULT_BURST_SHARE = 0.5;

/** The figures of `times` (the agent's connections, or the whole fleet's) and the proxy's `seen` connections. */
export function herdFigures(times: readonly HerdConnectionTimes[], seen: readonly SeenConnection[], dropNs: bigint): HerdFigures {
  const after = seen.filter((each) => each.openedAtNs >= dropNs);
  const bins: number[] = [];
  for (const each of after) {
    const bin = Math.floor(Number(each.openedAtNs - dropNs) / 1e6 / BIN_MS);
    while (bins.length <= bin) bins.push(0);
    bins[bin] = bins[bin]! + 1;
  }
  const peakAttempts = Math.max(0, ...bins);
  const moments = after.map((each) => Number(each.openedAtNs - dropNs) / 1e6).sort((a, b) => a - b);
  const momentAt = (share: number) => round3(moments[Math.min(moments.length - 1, Math.max(0, Math.ceil(share * moments.length) - 1))]!);
  const back = times
    .map((each) => (each.consumedAgainNs === null ? null : Number(each.consumedAgainNs - dropNs) / 1e6))
    .filter((each): each is number => each !== null)
    .sort((a, b) => a - b);
  const neverBack = times.length - back.length;
  const at = (share: number) => (back.length === 0 ? null : round3(back[Math.min(back.length - 1, Math.ceil(share * back.length) - 1)]!));
  return {
    connections: times.length,
    attemptsPerBin: bins,
    attempts: after.length,
    failedAttempts: after.filter((each) => !each.reachedBroker).length,
    peakAttempts,
    peakAtMs: peakAttempts === 0 ? null : bins.indexOf(peakAttempts) * BIN_MS,
    peakShare: times.length === 0 ? 0 : round3(peakAttempts / times.length),
    allBackMs: neverBack > 0 || back.length === 0 ? null : round3(back[back.length - 1]!),
    backMs: { p50: at(0.5), p90: at(0.9), max: back.length === 0 ? null : round3(back[back.length - 1]!) },
    neverBack,
    attemptMomentsMs:
      moments.length === 0
        ? null
        : {
            first: round3(moments[0]!),
            p10: momentAt(0.1),
            p50: momentAt(0.5),
            p90: momentAt(0.9),
            last: round3(moments[moments.length - 1]!),
            p10ToP90: round3(momentAt(0.9) - momentAt(0.1)),
          },
  };
}

/**
 * What a herd found about the client configuration: its attempts came as one burst (more than
 * `burstShare` of the connections within one 100 ms bin: no jitter spread them), or some of its
 * connections never consumed again within the bound.
 */
export function herdFindings(figures: HerdFigures, burstShare: number, backBoundMs: number): string[] {
  const findings: string[] = [];
  if (figures.connections > 0 && figures.peakAttempts > burstShare * figures.connections)
    findings.push(
      `attempts came as one burst: ${figures.peakAttempts} of ${figures.connections} connections (${Math.round(figures.peakShare * 100)} %) attempted within ${BIN_MS} ms, ${((figures.peakAtMs ?? 0) / 1000).toFixed(1)} s after the drop (more than ${Math.round(burstShare * 100)} %: nothing spread them)`,
    );
  if (figures.neverBack > 0)
    findings.push(
      `${figures.neverBack} of ${figures.connections} connections never consumed again within ${Math.round(backBoundMs / 1000)} s of the drop`,
    );
  return findings;
}
