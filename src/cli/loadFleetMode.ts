/**
 * Which part of a fleet a `bench load` process plays, from its flags (resolved once, with a
 * message for every combination that makes no sense):
 * - alone: the workload in this process (no --agents);
 * - local: N agent processes on this machine and their coordinator (--agents N);
 * - agent: one agent (--agent [I] --agents N --run-id R; the index from JOB_COMPLETION_INDEX when
 *   not given, as a Kubernetes Indexed Job sets it);
 * - coordinate: the coordinator alone, the agents started elsewhere (--coordinate --agents N --run-id R);
 * - emit-k8s: the Kubernetes manifests of a fleet, written instead of running (--emit-k8s FILE --agents N).
 */
import { ConfigError } from '../errors';
import { parseDurationMs } from '../faults/kinds/arguments';
import type { AgentBarrier } from '../fleet/agent';
import { checkFleetFaults } from '../fleet/faults';
import { newRunId, RUN_ID_PATTERN } from '../fleet/protocol';
import { splitWorkload } from '../fleet/split';
import type { LoadWorkload } from '../load/workload';

export interface FleetFlags {
  readonly agents?: string;
  readonly agent?: string | boolean;
  readonly coordinate?: boolean;
  readonly runId?: string;
  readonly barrierTimeout?: string;
  readonly startAt?: string;
  readonly emitK8s?: string;
  readonly k8sImage?: string;
  readonly k8sSecret?: string;
  readonly linger?: string;
}

export type FleetMode =
  | { readonly kind: 'alone' }
  | { readonly kind: 'local'; readonly agents: number; readonly runId: string; readonly barrierBoundMs: number }
  | { readonly kind: 'agent'; readonly agents: number; readonly index: number; readonly runId: string; readonly barrier: AgentBarrier }
  | {
      readonly kind: 'coordinate';
      readonly agents: number;
      readonly runId: string;
      readonly barrierBoundMs: number;
      readonly lingerMs: number;
    }
  | {
      readonly kind: 'emit-k8s';
      readonly agents: number;
      readonly runId: string;
      readonly file: string;
      readonly image: string;
      readonly secretName: string;
      readonly barrierBoundMs: number;
      readonly lingerMs: number;
    };

/** Local agents start in seconds; pods may wait for a node and an image pull. */
const DEFAULT_BARRIER = { local: '60s', k8s: '10m' } as const;

/** @throws ConfigError naming the flag */
export function resolveFleetMode(flags: FleetFlags, workload: LoadWorkload, env: NodeJS.ProcessEnv = process.env): FleetMode {
  const roles = [
    flags.agent !== undefined && '--agent',
    flags.coordinate && '--coordinate',
    flags.emitK8s !== undefined && '--emit-k8s',
  ].filter(Boolean);
  if (roles.length > 1)
    throw new ConfigError(String(roles[0]), `given alone (one of --agent, --coordinate, --emit-k8s)`, roles.join(' and '));
  if (flags.agents === undefined) {
    const stray = roles[0] ?? (flags.runId !== undefined ? '--run-id' : flags.startAt !== undefined ? '--start-at' : undefined);
    if (stray) throw new ConfigError(String(stray), 'given with --agents N (the fleet it belongs to)', 'without --agents');
    return { kind: 'alone' };
  }
  if (!/^[1-9]\d*$/.test(flags.agents.trim())) throw new ConfigError('--agents', 'a whole number ≥ 1', flags.agents);
  const agents = Number(flags.agents);
  splitWorkload(workload, agents);
  checkFleetFaults(workload);
  if (flags.startAt !== undefined && flags.agent === undefined)
    throw new ConfigError('--start-at', 'given with --agent (an agent without a coordinator)', flags.startAt);
  const runId = flags.runId ?? (flags.agent !== undefined || flags.coordinate ? undefined : newRunId());
  if (runId === undefined)
    throw new ConfigError('--run-id', `given with ${String(roles[0])} (the same id for every agent and the coordinator)`, 'nothing');
  if (!RUN_ID_PATTERN.test(runId)) throw new ConfigError('--run-id', 'letters, digits, ".", "_" and "-" (at most 80)', runId);
  const bound = (fallback: string) => parseDurationMs(flags.barrierTimeout ?? fallback, '--barrier-timeout');
  const lingerMs = flags.linger === undefined ? 0 : parseDurationMs(flags.linger, '--linger');
  if (flags.agent !== undefined)
    return { kind: 'agent', agents, index: agentIndex(flags.agent, agents, env), runId, barrier: barrierOf(flags, bound('10m')) };
  if (flags.coordinate) return { kind: 'coordinate', agents, runId, barrierBoundMs: bound(DEFAULT_BARRIER.k8s), lingerMs };
  if (flags.emitK8s !== undefined)
    return {
      kind: 'emit-k8s',
      agents,
      runId,
      file: flags.emitK8s,
      image: flags.k8sImage ?? `amqp-bench:${packageVersion()}`,
      secretName: flags.k8sSecret ?? 'amqp-bench-broker',
      barrierBoundMs: bound(DEFAULT_BARRIER.k8s),
      lingerMs: flags.linger === undefined ? 3_600_000 : lingerMs,
    };
  return { kind: 'local', agents, runId, barrierBoundMs: bound(DEFAULT_BARRIER.local) };
}

function agentIndex(flag: string | boolean, agents: number, env: NodeJS.ProcessEnv): number {
  const raw = typeof flag === 'string' ? flag : env.JOB_COMPLETION_INDEX;
  if (raw === undefined)
    throw new ConfigError(
      '--agent',
      'an index (--agent 2), or run where JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job)',
      'no index',
    );
  if (!/^\d+$/.test(raw.trim()) || Number(raw) >= agents)
    throw new ConfigError('--agent', `an index from 0 to ${agents - 1} (--agents ${agents})`, raw);
  return Number(raw);
}

function barrierOf(flags: FleetFlags, boundMs: number): AgentBarrier {
  if (flags.startAt === undefined) return { mode: 'coordinator', boundMs };
  const startAtUnixMs = /^\d+$/.test(flags.startAt) ? Number(flags.startAt) : Date.parse(flags.startAt);
  if (!Number.isFinite(startAtUnixMs))
    throw new ConfigError('--start-at', 'a wall-clock time, ISO 8601 (2026-11-27T10:00:00Z) or ms since the epoch', flags.startAt);
  return { mode: 'start_at', startAtUnixMs };
}

function packageVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the package's own version, read once
  return (require('../../package.json') as { version: string }).version;
}
