/**
 * The proxy's fault timeline against a packet capture of its listen port (pure): for every
 * connection the timeline says the proxy reset, the first RST the capture saw leave the proxy's
 * port for that client port, the difference between the two, and the fault spread each gives.
 *
 * Clocks: the timeline is on the monotonic clock (process.hrtime.bigint()); each result carries a
 * `clock_anchor` (a monotonic reading paired with the wall clock at a millisecond tick, taken right
 * after the run), which turns it into wall-clock seconds, the clock tshark's frame.time_epoch is
 * on. Both are this machine's clocks, so no other alignment is made: the first RST is not forced
 * to agree. A result of several replicates is checked replicate by replicate.
 */

import { recoveryReplicates, type RecoveryDetailsRead } from '../results/recoveryDetails';

/** RSTs that left the proxy's port: client port -> capture times (epoch seconds), oldest first. */
export type RstCapture = ReadonlyMap<number, readonly number[]>;

/** Reads tshark's `-T fields -e frame.time_epoch -e tcp.srcport -e tcp.dstport` output. */
export function readRstCapture(text: string, proxyPort: number): RstCapture {
  const byClientPort = new Map<number, number[]>();
  for (const line of text.split('\n')) {
    const [time, source, destination] = line.trim().split('\t');
    if (!time || Number(source) !== proxyPort) continue;
    const port = Number(destination);
    const times = byClientPort.get(port) ?? [];
    times.push(Number(time));
    byClientPort.set(port, times);
  }
  for (const times of byClientPort.values()) times.sort((a, b) => a - b);
  return byClientPort;
}

type TimelineDetails = Pick<RecoveryDetailsRead, 'clock_anchor' | 'fault_timeline'>;

export interface ReplicateCheck {
  readonly connections?: number;
  readonly matched?: number;
  /** Client ports the capture saw no RST for (null: the timeline did not know the port). */
  readonly missing?: readonly (number | null)[];
  readonly skipped?: string;
  readonly max_abs_diff_ms?: number;
  readonly median_diff_ms?: number;
  readonly first_rst_diff_ms?: number;
  readonly last_rst_diff_ms?: number;
  readonly spread_timeline_ms?: number;
  readonly spread_capture_ms?: number;
  readonly spread_diff_ms?: number;
}

/** One replicate's timeline against the capture. */
export function checkTimeline(details: TimelineDetails, capture: RstCapture): ReplicateCheck {
  const anchor = details.clock_anchor;
  const timeline = details.fault_timeline;
  if (!anchor || !Array.isArray(timeline) || timeline.length === 0) return { skipped: 'no fault timeline or clock anchor in this result' };
  const epochOf = (ns: string) => anchor.epoch_ms / 1000 + Number(BigInt(ns) - BigInt(anchor.monotonic_ns)) / 1e9;
  const pairs: { proxy: number; capture: number }[] = [];
  const missing: (number | null)[] = [];
  for (const entry of timeline) {
    const proxyEpoch = epochOf(entry.acted_ns);
    const times = entry.client_port === null ? [] : (capture.get(entry.client_port) ?? []);
    // The capture's RST on that client port nearest the timeline's moment (a port can come back in a later replicate).
    const nearest = times.reduce<number | undefined>(
      (best, time) => (best === undefined || Math.abs(time - proxyEpoch) < Math.abs(best - proxyEpoch) ? time : best),
      undefined,
    );
    if (nearest === undefined || Math.abs(nearest - proxyEpoch) > 1) missing.push(entry.client_port);
    else pairs.push({ proxy: proxyEpoch, capture: nearest });
  }
  if (pairs.length === 0) return { connections: timeline.length, matched: 0, missing };
  const ms = (seconds: number) => Math.round(seconds * 1e6) / 1e3;
  const diffs = pairs.map((pair) => pair.capture - pair.proxy);
  const first = (key: 'proxy' | 'capture') => Math.min(...pairs.map((pair) => pair[key]));
  const last = (key: 'proxy' | 'capture') => Math.max(...pairs.map((pair) => pair[key]));
  return {
    connections: timeline.length,
    matched: pairs.length,
    missing,
    max_abs_diff_ms: ms(Math.max(...diffs.map(Math.abs))),
    median_diff_ms: ms([...diffs].sort((a, b) => a - b)[Math.floor(diffs.length / 2)]!),
    first_rst_diff_ms: ms(first('capture') - first('proxy')),
    last_rst_diff_ms: ms(last('capture') - last('proxy')),
    spread_timeline_ms: ms(last('proxy') - first('proxy')),
    spread_capture_ms: ms(last('capture') - first('capture')),
    spread_diff_ms: ms(last('capture') - first('capture') - (last('proxy') - first('proxy'))),
  };
}

/** Every replicate of a result (its `details.replicates`, or the details themselves). */
export function checkResult(result: { readonly details?: unknown }, capture: RstCapture): ReplicateCheck[] {
  return recoveryReplicates(result).replicates.map((replicate) => checkTimeline(replicate, capture));
}
