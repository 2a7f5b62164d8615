/**
 * A fleet's result from its agents' (pure): counts summed; latency histograms added (never
 * percentiles averaged); the sequence numbers each agent consumed and confirmed OR-ed, so a
 * message confirmed by one agent and consumed by another is counted once, a duplicate across
 * agents is seen, and a confirmed message nobody consumed is lost; the time series summed point by
 * point; one row per agent kept. An agent that gave no result is named with why, and the result
 * says what the fleet lacks: never a silent partial.
 *
 * Clock honesty: an end-to-end latency is a consumer's clock minus a producer's. Agents on one
 * machine read one monotonic clock, and an agent that consumes all its own messages times them on
 * its own; otherwise (producers and consumers of a queue on different machines) end-to-end
 * figures are left out, and confirm latency (timed by the producer alone) and rates remain.
 */
import { encodeHistogram, mergeHistograms, type LatencyHistogram } from '../measure/histogram';
import { round3 } from '../measure/round';
import { countBits, countBitsMissing } from '../load/recorder';
import { latencyFiguresMs } from '../load/latency';
import { rateFigures, type LoadResult } from '../load/result';
import { scheduleOf } from '../load/schedule';
import { scheduleEndMs, type LoadWorkload } from '../load/workload';
import { decodeBits, loadResultOf, type FleetAgentResult } from './agentResult';
import { agentRowOf, type FleetAgentRow } from './rows';
import { mergeTimeSeries } from './mergeSeries';
import { inFlightOf, latenessNote } from '../load/lateness';

export interface AbsentAgent {
  readonly agent: number;
  /** Why there is no usable result, in words (`exited with SIGKILL 12.3 s after the start`). */
  readonly reason: string;
}

export interface FleetSection {
  readonly run_id: string;
  readonly agents_expected: number;
  /** Agents whose share ran (completed or aborted) and whose result arrived. */
  readonly agents_merged: number;
  readonly absent: readonly AbsentAgent[];
  /** Machines (clocks) the merged agents ran on. */
  readonly machines: number;
  readonly end_to_end: 'merged' | 'left_out';
  readonly clock_note: string;
  /** Latest minus earliest start of the merged agents by their own wall clocks (ms): the start's spread as far as the clocks agree. */
  readonly start_spread_ms: number | null;
  /** How much of the merged latency is the agents' own lateness (schedule lag, their start, a catch-up); null when nothing worth saying. */
  readonly lateness_note: string | null;
  readonly agents: readonly FleetAgentRow[];
}

export type FleetResult = LoadResult & { readonly fleet: FleetSection };

export interface FleetMergeInput {
  readonly runId: string;
  readonly agentCount: number;
  readonly workload: LoadWorkload;
  /** Every result that arrived (any status). */
  readonly files: readonly FleetAgentResult[];
  /** Agents the coordinator knows to be gone, and why (lost, never ready). */
  readonly absent: readonly AbsentAgent[];
}

/** The fleet's result. @throws Error when no agent's share ran (nothing to merge) */
export function mergeFleet(input: FleetMergeInput): FleetResult {
  const ran = input.files.filter((file) => file.result !== null && (file.status === 'completed' || file.status === 'aborted'));
  const absent = absentAgents(input, ran);
  if (ran.length === 0)
    throw new Error(
      `no agent of ${input.agentCount} ran its share: ${absent.map((each) => `agent ${each.agent}: ${each.reason}`).join('; ')}`,
    );
  const results = ran.map((file) => loadResultOf(file)!);
  const machines = new Set(ran.map((file) => file.agent.machine_id)).size;
  const endToEnd = machines === 1 || ran.every((file) => file.share.accounts_alone);
  const histogram = (name: string): LatencyHistogram => mergeHistograms(results.map((result) => result.histograms[name]!));
  const e2e = endToEnd ? histogram('end_to_end_latency') : mergeHistograms([]);
  const confirm = histogram('confirm_latency');
  const lag = histogram('schedule_lag');
  const first = results[0]!;
  const achieved = results.reduce((sum, result) => sum + result.achieved_rate_per_s, 0);
  const intended = intendedRate(input.workload);
  const clockNote = clockNoteOf(machines, endToEnd);
  const starts = ran.map((file) => file.barrier.started_at_unix_ms).filter((each): each is number => each !== null);
  const latency = { end_to_end: latencyFiguresMs(e2e), confirm: latencyFiguresMs(confirm), schedule_lag: latencyFiguresMs(lag) };
  const timeseries = mergeTimeSeries(
    ran.map((file) => ({ points: loadResultOf(file)!.timeseries, histograms: file.interval_histograms })),
    endToEnd,
  );
  const publishingEndedMs = Math.max(...results.map((result) => result.publishing_ended_ms));
  const rows = input.files.map((file) => agentRowOf(file, endToEnd || file.share.accounts_alone));
  const lateness = latenessNote({
    lag: latency.schedule_lag,
    ...(endToEnd ? { latency: latency.end_to_end, latencyName: 'end-to-end' } : { latency: latency.confirm, latencyName: 'confirm' }),
    agentLagP99Ms: rows
      .filter((row) => row.schedule_lag_p99_ms !== null)
      .map((row) => ({ agent: row.agent, p99: row.schedule_lag_p99_ms })),
    points: timeseries,
    warmupMs: input.workload.warmupMs,
    publishingEndedMs,
    scheduleEndMs: scheduleEndMs(input.workload),
    agentsOnOneMachine: machines === 1 && ran.length > 1 ? ran.length : null,
    viaProxy: first.via_proxy,
    ...inFlightOf(input.workload),
  });
  const fleet: FleetSection = {
    run_id: input.runId,
    agents_expected: input.agentCount,
    agents_merged: ran.length,
    absent,
    machines,
    end_to_end: endToEnd ? 'merged' : 'left_out',
    clock_note: clockNote,
    start_spread_ms: starts.length > 1 ? round3(Math.max(...starts) - Math.min(...starts)) : null,
    lateness_note: lateness,
    agents: rows,
  };
  return {
    ...first,
    workload: input.workload,
    aborted: results.some((result) => result.aborted) || absent.length > 0,
    ...rateFigures(intended, achieved),
    messages: mergeMessages(input.workload, ran, absent.length === 0),
    latency_ms: latency,
    histograms: { end_to_end_latency: encodeHistogram(e2e), confirm_latency: encodeHistogram(confirm), schedule_lag: encodeHistogram(lag) },
    connection_faults: ran.flatMap((file) =>
      loadResultOf(file)!.connection_faults.map((fault) => ({ ...fault, connection: `a${file.agent.index}/${fault.connection}` })),
    ),
    publishing_ended_ms: publishingEndedMs,
    ended_ms: Math.max(...results.map((result) => result.ended_ms)),
    timeseries,
    notes: [...fleetNotes(input, ran.length, absent, clockNote, first), ...(lateness ? [lateness] : [])],
    fleet,
  };
}

/** Agents without a merged result: those the coordinator named, then any other without one. */
function absentAgents(input: FleetMergeInput, ran: readonly FleetAgentResult[]): AbsentAgent[] {
  const merged = new Set(ran.map((file) => file.agent.index));
  const absent = new Map<number, string>();
  for (const file of input.files) {
    if (merged.has(file.agent.index)) continue;
    absent.set(
      file.agent.index,
      file.status === 'late'
        ? `late: ${file.error ?? 'reached the barrier after the start'}`
        : `${file.status}: ${file.error ?? 'no figures'}`,
    );
  }
  for (const each of input.absent) if (!merged.has(each.agent) && !absent.has(each.agent)) absent.set(each.agent, each.reason);
  for (let agent = 0; agent < input.agentCount; agent += 1)
    if (!merged.has(agent) && !absent.has(agent)) absent.set(agent, 'no result arrived');
  return [...absent.entries()].sort(([a], [b]) => a - b).map(([agent, reason]) => ({ agent, reason }));
}

/** The whole workload's intended rate over its measured part (null for rate 0). */
function intendedRate(workload: LoadWorkload): number | null {
  const schedule = scheduleOf(workload.rate);
  if (!schedule.paced) return null;
  const measured = schedule.dueBy(scheduleEndMs(workload) * 1e6) - schedule.dueBy(workload.warmupMs * 1e6);
  return (measured * 1000) / workload.durationMs;
}

function mergeMessages(workload: LoadWorkload, ran: readonly FleetAgentResult[], complete: boolean): LoadResult['messages'] {
  const results = ran.map((file) => loadResultOf(file)!);
  const sum = (read: (messages: LoadResult['messages']) => number) => results.reduce((total, result) => total + read(result.messages), 0);
  const seen = orBits(ran.map((file) => decodeBits(file.sequence_bits.seen)));
  const confirmed = orBits(ran.map((file) => decodeBits(file.sequence_bits.confirmed)));
  const unique = countBits(seen);
  const consumed = sum((messages) => messages.consumed);
  const intended = results.every((result) => result.messages.intended !== null) ? sum((messages) => messages.intended ?? 0) : null;
  return {
    intended,
    published: sum((messages) => messages.published),
    unsent: sum((messages) => messages.unsent),
    publish_failed: sum((messages) => messages.publish_failed),
    confirmed: sum((messages) => messages.confirmed),
    nacked: sum((messages) => messages.nacked),
    consumed,
    consumed_unique: unique,
    duplicates: consumed - unique,
    nacked_by_consumer: sum((messages) => messages.nacked_by_consumer),
    not_consumed: Math.max(0, sum((messages) => messages.published) - unique),
    // Only a complete fleet can say a message was lost: a missing agent's consumers may have had it.
    lost_confirmed: workload.confirmWindow > 0 && workload.consumers > 0 && complete ? countBitsMissing(confirmed, seen) : null,
  };
}

/** The OR of bit sets of any lengths. */
export function orBits(sets: readonly Uint8Array[]): Uint8Array {
  const merged = new Uint8Array(Math.max(0, ...sets.map((set) => set.length)));
  for (const set of sets) for (let byte = 0; byte < set.length; byte += 1) merged[byte] = merged[byte]! | set[byte]!;
  return merged;
}

function clockNoteOf(machines: number, endToEnd: boolean): string {
  if (machines === 1) return 'every agent ran on one machine: one monotonic clock, end-to-end latency merged across agents';
  if (endToEnd)
    return `agents on ${machines} machines, each consuming only its own messages: every end-to-end latency was timed by one agent on its own clock, and those are merged`;
  return `agents on ${machines} machines share queues across machines (clocks not shared): end-to-end latency left out; confirm latency (timed by each producer alone) and rates are merged`;
}

function fleetNotes(
  input: FleetMergeInput,
  merged: number,
  absent: readonly AbsentAgent[],
  clockNote: string,
  first: LoadResult,
): string[] {
  const own = first.notes.filter((note) => !/other processes of the fleet/.test(note));
  return [
    `a fleet of ${input.agentCount} agent(s) (run ${input.runId}): ${merged} merged${absent.length > 0 ? `; MISSING ${absent.map((each) => `agent ${each.agent} (${each.reason})`).join(', ')}: the figures lack their share` : ''}`,
    clockNote,
    'latency histograms added across agents (not percentiles averaged); counts summed; messages accounted by sequence number across agents',
    ...own,
  ];
}
