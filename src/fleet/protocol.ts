/**
 * What a fleet's coordinator and agents say to each other through the broker (pure: names and
 * message shapes). Everything goes through a control exchange of the run's own,
 * `bench.fleet.<run id>`, and one inbox queue per participant — never the workload's queues. The
 * broker is the one address every agent already has, wherever the engine placed it (a pod, a CI
 * job, a process here), so nothing else needs to be reachable: no coordinator address, no
 * Service, no port.
 *
 * The order: the coordinator declares the workload's queues and says `setup`; each agent connects
 * its clients and says `ready`; once all are ready (or the barrier's bound passed) the coordinator
 * says `start` (a moment a little ahead); each agent says `alive` while it runs and `result` at
 * the end. Inboxes exist before anyone reads them (whoever comes first declares them), so an agent
 * that starts before its coordinator misses nothing.
 */
import type { FleetAgentResult } from '../schemaTypes/fleetAgentResult';

export const CONTROL_PROTOCOL_VERSION = 1;

/** A run id usable in queue, exchange and connection names (the broker's close-by-name takes only such). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9._-]{1,80}$/;

/** Queues of the control exchange expire after an hour unused (a run abandoned by a killed coordinator). */
export const CONTROL_QUEUE_EXPIRES_MS = 3_600_000;

export type ControlMessage =
  | { readonly kind: 'hello'; readonly agent: number; readonly host: string; readonly machine_id: string; readonly pid: number }
  | { readonly kind: 'setup' }
  | { readonly kind: 'ready'; readonly agent: number }
  | {
      readonly kind: 'start';
      /** The start by the coordinator's wall clock. */
      readonly start_at_unix_ms: number;
      /** The same start as the coordinator's monotonic clock (ns, decimal): exact for agents on its machine. */
      readonly start_mono_ns: string;
      readonly machine_id: string;
    }
  | {
      readonly kind: 'alive';
      readonly agent: number;
      /** Seconds since its start. */
      readonly t_s: number;
      readonly published: number;
      readonly consumed: number;
    }
  | { readonly kind: 'result'; readonly agent: number; readonly file: FleetAgentResult }
  | { readonly kind: 'abort'; readonly reason: string }
  /** A herd agent's connections so far: how many lost their connection, how many consume again. */
  | {
      readonly kind: 'herd_progress';
      readonly agent: number;
      readonly faulted: number;
      readonly consuming_again: number;
      readonly of: number;
    }
  | { readonly kind: 'herd_result'; readonly agent: number; readonly report: HerdAgentReport };

/** What a herd agent recorded of each of its connections (monotonic ns as decimal strings; null: never). */
export interface HerdAgentReport {
  readonly agent: number;
  readonly host: string;
  readonly pid: number;
  readonly client: { readonly name: string; readonly profile: string; readonly library: string; readonly version: string };
  readonly connections: readonly {
    readonly name: string;
    readonly fault_ns: string | null;
    readonly back_ns: string | null;
    readonly consumed_again_ns: string | null;
    readonly faults: number;
  }[];
  readonly error: string | null;
}

/** A message as sent: the protocol's version and the sender's wall clock around it. */
export type ControlEnvelope = ControlMessage & { readonly version: number; readonly sent_unix_ms: number };

export function controlExchange(runId: string): string {
  return `bench.fleet.${runId}`;
}

/** The inbox of the coordinator, or of agent `index`. */
export function inboxOf(runId: string, who: 'coordinator' | number): string {
  return who === 'coordinator' ? `bench.fleet.${runId}.coordinator` : `bench.fleet.${runId}.agent.${who}`;
}

/** Routing keys: `coordinator`, `agent.<i>`, and `agents` (every agent). */
export function routingKeyOf(to: 'coordinator' | 'agents' | number): string {
  return typeof to === 'number' ? `agent.${to}` : to;
}

/** Parses one control message. @returns the message, or a problem in words */
export function parseControlMessage(text: string): ControlEnvelope | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'not an object';
  const { version, kind } = value as { version?: unknown; kind?: unknown };
  if (version !== CONTROL_PROTOCOL_VERSION)
    return `protocol version ${String(version)}, this side speaks ${CONTROL_PROTOCOL_VERSION} (run every agent and the coordinator from one amqp-bench version)`;
  if (!['hello', 'setup', 'ready', 'start', 'alive', 'result', 'abort', 'herd_progress', 'herd_result'].includes(kind as string))
    return `unknown kind ${String(kind)}`;
  return value as ControlEnvelope;
}

/** A fresh run id: `fleet-<time>-<random>`. */
export function newRunId(now: Date = new Date(), random: () => number = Math.random): string {
  return `fleet-${now.getTime().toString(36)}-${Math.floor(random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0')}`;
}
