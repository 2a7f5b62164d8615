/**
 * What a thread's library did while the broker stopped reading (pure), from its stall samples and
 * its publishes: the rate it was offered, whether it said its writes were held, how fast its
 * memory grew (least-squares slope over the samples taken while the stall held: this worker's heap
 * plus its external memory, and the process's RSS), how many publishes were outstanding, and how
 * long after the removal the last publish made during the stall settled (the drain).
 */
import { elapsedMs } from '../measure/clock';
import { roundTo } from '../measure/round';
import type { MatrixThread as MatrixThreadDetail } from '../schemaTypes';
import { PublishPhase, PublishState, type MatrixThreadReport, type StallReport, type StallSample } from './report';

export type StallDetail = NonNullable<MatrixThreadDetail['stall']>;

const MB = 1e6;

/** Least-squares slope of `value` (bytes) over time, in MB per second; null with fewer than two samples. */
export function slopeMbPerS(samples: readonly StallSample[], value: (sample: StallSample) => number): number | null {
  if (samples.length < 2) return null;
  const originNs = BigInt(samples[0]!.atNs);
  const xs = samples.map((sample) => Number(BigInt(sample.atNs) - originNs) / 1e9);
  const ys = samples.map((sample) => value(sample) / MB);
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, index) => {
    covariance += (x - meanX) * (ys[index]! - meanY);
    variance += (x - meanX) ** 2;
  });
  return variance === 0 ? null : covariance / variance;
}

/**
 * given: it turned on after the injection; on_already: on at the first poll that saw the
 * injection and at the last before the removal with no episode between (so on at every poll: it
 * never turned on because it never turned off); not_given: the library has one and did not use it.
 */
function signalOf(stall: StallReport): StallDetail['signal'] {
  if (!stall.signal) return 'none';
  if (stall.episodes > 0) return 'given';
  return stall.heldAtInjection === true && stall.heldAtRemoval === true ? 'on_already' : 'not_given';
}

/**
 * The signal at the injection and at the removal, its share of the samples taken while the stall
 * held and of the polls before it (the ordinary load: every publish interval, where the 250 ms
 * samples before a short warm-up are too few to say), and the longest gap between polls while it held.
 */
type SignalState =
  | 'signal_at_injection'
  | 'signal_at_removal'
  | 'signal_on_share'
  | 'signal_on_share_before'
  | 'polls_before_injection'
  | 'longest_poll_gap_ms';

function signalStates(stall: StallReport, held: readonly StallSample[]): Pick<StallDetail, SignalState> {
  const has = stall.signal;
  return {
    signal_at_injection: has ? stall.heldAtInjection : null,
    signal_at_removal: has ? stall.heldAtRemoval : null,
    signal_on_share: has && held.length > 0 ? roundTo(held.filter((sample) => sample.held).length / held.length, 3) : null,
    signal_on_share_before:
      has && stall.pollsBeforeInjection > 0 ? roundTo(stall.heldPollsBeforeInjection / stall.pollsBeforeInjection, 3) : null,
    polls_before_injection: stall.pollsBeforeInjection,
    longest_poll_gap_ms: stall.longestPollGapMs === null ? null : roundTo(stall.longestPollGapMs, 3),
  };
}

const round = (value: number | null, digits = 3): number | null => (value === null ? null : roundTo(value, digits));

/** The stall as one thread lived it, from the injection to the removal (its connection's moments). */
export function stallDetail(
  report: MatrixThreadReport,
  injectedNs: bigint,
  removedNs: bigint | null,
  messageBytes: number,
): StallDetail | undefined {
  const stall = report.stall;
  if (!stall) return undefined;
  const endNs = removedNs ?? injectedNs;
  const held = stall.samples.filter((sample) => BigInt(sample.atNs) >= injectedNs && BigInt(sample.atNs) <= endNs);
  const stallS = Math.max(0, elapsedMs(injectedNs, endNs) / 1000);
  let published = 0;
  let unsettled = 0;
  let lastSettledNs = 0n;
  for (let seq = 0; seq < report.phase.length; seq += 1) {
    if (report.phase[seq] !== PublishPhase.DURING_FAULT) continue;
    published += 1;
    if (report.state[seq] === PublishState.PENDING) unsettled += 1;
    else if (report.settledAtNs[seq]! > lastSettledNs) lastSettledNs = report.settledAtNs[seq]!;
  }
  const atRemoval = held.at(-1);
  // A client program's library lives in its own process: this worker's memory says nothing of it.
  const memory = (value: (sample: StallSample) => number) => (stall.outOfProcess ? null : round(slopeMbPerS(held, value)));
  return {
    stall_s: roundTo(stallS, 3),
    offered_msg_per_s: stallS > 0 ? roundTo(published / stallS, 1) : null,
    offered_mb_per_s: stallS > 0 ? roundTo((published * messageBytes) / MB / stallS, 3) : null,
    signal: signalOf(stall),
    signal_episodes: stall.episodes,
    ...signalStates(stall, held),
    memory_measured: !stall.outOfProcess,
    worker_memory_mb_per_s: memory((sample) => sample.heapBytes + sample.externalBytes),
    worker_heap_mb_per_s: memory((sample) => sample.heapBytes),
    rss_mb_per_s: memory((sample) => sample.rssBytes),
    program_rss_mb_per_s: programRss(stall.outOfProcess, held),
    outstanding_at_removal: atRemoval?.outstanding ?? null,
    outstanding_max: stall.samples.reduce((max, sample) => Math.max(max, sample.outstanding), 0),
    published_during_stall: published,
    unsettled_from_stall: unsettled,
    drain_ms:
      removedNs === null || unsettled > 0 || published === 0 || lastSettledNs === 0n
        ? null
        : roundTo(Math.max(0, elapsedMs(removedNs, lastSettledNs)), 3),
    samples: held.length,
  };
}

/** A client program's own resident set as it grew while the stall held; null in process, or when a sample could not read it. */
function programRss(outOfProcess: boolean, held: readonly StallSample[]): number | null {
  if (!outOfProcess || held.some((sample) => sample.programRssBytes === null)) return null;
  return round(slopeMbPerS(held, (sample) => sample.programRssBytes!));
}
