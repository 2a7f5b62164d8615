/**
 * A load run's fault schedule: faults of the fault model (src/faults/kinds/registry.ts), each
 * prepared before the clients connect, injected at its start and removed after its length, with
 * every moment recorded as the fault model records it (injection bracket, hits, removal, and the
 * proxy timeline's own moment where it saw the fault act). No fault model of its own.
 */
import { describeError } from '../errors';
import { actedConnections, faultReference, type FaultReference } from '../faults/moments';
import { createFault } from '../faults/kinds/registry';
import type { Fault, FaultContext, FaultRemoval, Injection } from '../faults/model';
import { faultRecord, type FaultRecord } from '../faults/record';
import type { FaultEvent } from '../faults/toxiproxyClient';
import { elapsedMs } from '../measure/clock';
import type { ScheduledFault } from './workload';

/** `latency:200ms@10s+5s` -> the fault text, its start and its length, as a workload file has them. */
export function parseFaultFlag(text: string): { fault: string; at: string; length: string } | string {
  const at = text.lastIndexOf('@');
  const plus = text.lastIndexOf('+');
  if (at <= 0 || plus < at)
    return `--fault must be KIND[:ARG]@START+LENGTH (e.g. latency:200ms@10s+5s, reset_peer@10s+1s); got ${JSON.stringify(text)}`;
  return { fault: text.slice(0, at), at: text.slice(at + 1, plus), length: text.slice(plus + 1) };
}

/** What happened to one scheduled fault. */
export interface FaultWindowRecord {
  readonly text: string;
  readonly kind: string;
  /** Planned, ms from the start of the run. */
  readonly plannedAtMs: number;
  readonly plannedLengthMs: number;
  /** When the injecting call started and ended, ms from the start of the run; null if never injected. */
  readonly injectedAtMs: number | null;
  readonly injectionCompletedAtMs: number | null;
  /** When the removing call ended, ms from the start of the run. */
  readonly removedAtMs: number | null;
  /** The moment figures are timed from (the proxy timeline's first act when it saw one), ms from the start. */
  readonly referenceAtMs: number | null;
  readonly record: FaultRecord | null;
  readonly error: string | null;
}

export interface FaultScheduleRun {
  /** Faults in place now, as `+`-joined texts (`none` when there are none): the time series' fault state. */
  state(): string;
  /** Starts the timers (call at the start of the run). */
  start(startNs: bigint): void;
  /** Removes whatever is in place and cancels what has not started; resolves with each fault's record. Safe to call twice. */
  stop(events: () => Promise<readonly FaultEvent[] | null>): Promise<FaultWindowRecord[]>;
}

interface Entry {
  readonly scheduled: ScheduledFault;
  readonly fault: Fault;
  injection: Injection | null;
  injecting: Promise<void> | null;
  removal: FaultRemoval | null;
  removing: Promise<void> | null;
  error: string | null;
  active: boolean;
}

/**
 * Creates every fault (so a missing context fails before anything runs) and prepares it (a toxic
 * armed before the clients connect).
 * @throws ConfigError naming a fault the context cannot serve
 */
export async function prepareFaultSchedule(
  faults: readonly ScheduledFault[],
  context: FaultContext,
  log: (line: string) => void,
): Promise<FaultScheduleRun> {
  const entries: Entry[] = faults.map((scheduled) => ({
    scheduled,
    fault: createFault(scheduled.spec, context),
    injection: null,
    injecting: null,
    removal: null,
    removing: null,
    error: null,
    active: false,
  }));
  for (const entry of entries) await entry.fault.prepare();
  const timers: NodeJS.Timeout[] = [];
  let startNs = 0n;
  const remove = (entry: Entry) => {
    entry.removing ??= (async () => {
      await entry.injecting;
      try {
        entry.removal = await entry.fault.remove();
      } catch (error) {
        entry.error ??= `removal failed: ${describeError(error)}`;
        log(`load: fault ${entry.scheduled.text}: ${entry.error}`);
      }
      entry.active = false;
    })();
    return entry.removing;
  };
  let stopping: Promise<FaultWindowRecord[]> | undefined;
  return {
    state() {
      const active = entries.filter((entry) => entry.active).map((entry) => entry.scheduled.text);
      return active.length === 0 ? 'none' : active.join('+');
    },
    start(runStartNs) {
      startNs = runStartNs;
      for (const entry of entries) {
        timers.push(
          setTimeout(() => {
            entry.injecting = (async () => {
              try {
                entry.injection = await entry.fault.inject();
                entry.active = true;
              } catch (error) {
                entry.error = `injection failed: ${describeError(error)}`;
                log(`load: fault ${entry.scheduled.text}: ${entry.error}`);
              }
            })();
            timers.push(setTimeout(() => void remove(entry), entry.scheduled.lengthMs));
          }, entry.scheduled.atMs),
        );
      }
    },
    stop(events) {
      stopping ??= (async () => {
        for (const timer of timers) clearTimeout(timer);
        await Promise.all(entries.filter((entry) => entry.injecting !== null).map(remove));
        // Prepared (armed) but never injected: taken away too.
        await Promise.all(entries.filter((entry) => entry.injecting === null).map((entry) => entry.fault.remove().catch(() => undefined)));
        let timeline: readonly FaultEvent[] | null = null;
        try {
          timeline = await events();
        } catch {
          timeline = null;
        }
        return entries.map((entry) => windowRecord(entry, startNs, timeline));
      })();
      return stopping;
    },
  };
}

/**
 * What a fault's timing says about the run's figures, when it matters (null otherwise). A broker
 * fault is injected by a CLI call that takes seconds on a loaded machine: one that ended only after
 * publishing had ended acted on nothing the run published (RabbitMQ blocks a connection when it
 * publishes), so it has no moment of its own on the proxy's timeline and is timed from the call's
 * start, an upper bound; one whose call outlasted its planned length was removed as soon as it was
 * in place.
 */
export function faultTimingNote(fault: FaultWindowRecord, publishingEndedMs: number): string | null {
  if (fault.injectedAtMs === null || fault.injectionCompletedAtMs === null) return null;
  const callMs = Math.round(fault.injectionCompletedAtMs - fault.injectedAtMs);
  if (fault.injectionCompletedAtMs >= publishingEndedMs)
    return `fault ${fault.text}: its injecting call took ${callMs} ms, so it was in place only from ${Math.round(fault.injectionCompletedAtMs)} ms, after publishing ended (${Math.round(publishingEndedMs)} ms): nothing was published under it`;
  if (callMs > fault.plannedLengthMs)
    return `fault ${fault.text}: its injecting call took ${callMs} ms, longer than its planned length (${fault.plannedLengthMs} ms): it was removed as soon as it was in place`;
  return null;
}

function windowRecord(entry: Entry, startNs: bigint, timeline: readonly FaultEvent[] | null): FaultWindowRecord {
  const fromStart = (ns: bigint) => Math.round(elapsedMs(startNs, ns) * 1000) / 1000;
  const { injection, removal } = entry;
  let reference: FaultReference | null = null;
  if (injection) {
    // Only what the proxy saw while this fault was in place is its act.
    const inWindow = (timeline ?? []).filter((event) => {
      const at = BigInt(event.at_ns);
      return at >= injection.bracket.startedNs && (removal === null || at <= removal.completedNs);
    });
    reference = faultReference(actedConnections(inWindow, entry.fault.definition), entry.fault.definition, injection.bracket.startedNs);
  }
  return {
    text: entry.scheduled.text,
    kind: entry.fault.kind,
    plannedAtMs: entry.scheduled.atMs,
    plannedLengthMs: entry.scheduled.lengthMs,
    injectedAtMs: injection ? fromStart(injection.bracket.startedNs) : null,
    injectionCompletedAtMs: injection ? fromStart(injection.bracket.completedNs) : null,
    removedAtMs: removal && removal.method !== 'nothing_to_undo' ? fromStart(removal.completedNs) : null,
    referenceAtMs: reference ? fromStart(reference.ns) : null,
    record: injection && reference ? faultRecord({ fault: entry.fault, injection, reference, receivedPerThread: [], removal }) : null,
    error: entry.error,
  };
}
