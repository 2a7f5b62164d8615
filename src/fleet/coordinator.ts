/**
 * A fleet's coordinator: owns the run's queues (declared fresh before any agent consumes, deleted
 * at the end) and its control exchange, holds the start barrier, and collects every agent's result
 * within stated bounds. It never places or restarts an agent (the engine does: local processes,
 * a Kubernetes Indexed Job, a CI matrix); it only names, at the end, each agent that did not
 * deliver and why — never ready within the barrier's bound, late, silent for longer than the
 * silence bound (lost), or gone (a local process that exited without a result).
 */
import { QueueAdmin } from '../broker/queueAdmin';
import { describeError } from '../errors';
import { nowNs } from '../measure/clock';
import { queueName, type LoadWorkload } from '../load/workload';
import type { FleetAgentResult } from './agentResult';
import { machineId } from './agentResult';
import { awaitReady, START_LEAD_MS, type BarrierOutcome } from './barrier';
import { openControl, type ControlEndpoint } from './control';
import type { AbsentAgent } from './merge';
import type { ControlEnvelope } from './protocol';

export interface CoordinatorOptions {
  readonly runId: string;
  readonly count: number;
  readonly workload: LoadWorkload;
  /** The broker the agents use (the control exchange and the workload's queues live there). */
  readonly amqpUrl: string;
  /** How long to wait for every agent to be ready. */
  readonly barrierBoundMs: number;
  /** From the start to the last result: the schedule, catch-up, drain and teardown. */
  readonly runBoundMs: number;
  /** An agent not heard of for this long after the start is lost. */
  readonly silenceBoundMs: number;
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
  /** Agents known gone now (local processes that exited), with why. @default none */
  readonly gone?: () => ReadonlyMap<number, string>;
  /** Each agent's progress as it reports it (about once a second). */
  readonly onAlive?: (alive: ReadonlyMap<number, Extract<ControlEnvelope, { kind: 'alive' }>>) => void;
}

export interface FleetRun {
  readonly files: readonly FleetAgentResult[];
  readonly absent: readonly AbsentAgent[];
  /** The start, by the coordinator's wall clock; null when nothing started. */
  readonly startAtUnixMs: number | null;
}

/** Runs the barrier and collects the results. @throws BrokerError when the broker cannot be reached at all */
export async function coordinateFleet(options: CoordinatorOptions): Promise<FleetRun> {
  const control = await openControl(options.amqpUrl, options.runId, 'coordinator');
  let admin: QueueAdmin | undefined;
  try {
    await control.declareAgentInboxes(options.count);
    admin = await QueueAdmin.open(options.amqpUrl);
    const { workload } = options;
    const spec = { durable: workload.queueType !== 'classic', arguments: { 'x-queue-type': workload.queueType } };
    for (let index = 0; index < workload.queues; index += 1) await admin.declareFresh(queueName(workload.queuePattern, index), spec);
    await control.send('agents', { kind: 'setup' });
    options.log(`fleet ${options.runId}: waiting for ${options.count} agent(s) (at most ${options.barrierBoundMs / 1000} s)`);
    const gone = () => new Set(options.gone?.().keys() ?? []);
    const barrier = await awaitReady(control, options.count, options.barrierBoundMs, gone, (line) => options.log(`fleet: ${line}`));
    if (barrier.ready.length === 0 || options.signal?.aborted) {
      await control.send('agents', {
        kind: 'abort',
        reason: barrier.ready.length === 0 ? 'no agent was ready' : 'the coordinator was stopped',
      });
      return {
        files: barrier.early.map((each) => each.file),
        absent: absentOf(options, barrier, new Map(), new Map()),
        startAtUnixMs: null,
      };
    }
    const startAtUnixMs = Date.now() + START_LEAD_MS;
    const startMonoNs = nowNs() + BigInt(START_LEAD_MS) * 1_000_000n;
    await control.send('agents', {
      kind: 'start',
      start_at_unix_ms: startAtUnixMs,
      start_mono_ns: startMonoNs.toString(),
      machine_id: machineId(),
    });
    options.log(
      `fleet: start with ${barrier.ready.length} of ${options.count} agent(s)${barrier.ready.length < options.count ? ` (not ready: ${missingOf(options.count, barrier.ready).join(', ')})` : ''}`,
    );
    return await collect(options, control, barrier, startAtUnixMs);
  } finally {
    await admin?.close().catch((error: unknown) => options.log(`fleet: queues not deleted: ${describeError(error)}`));
    await control.deleteAll(options.count).catch(() => undefined);
    await control.close();
  }
}

/** Collects results until every ready agent delivered, or each is known gone or silent, or the run's bound passed. */
async function collect(
  options: CoordinatorOptions,
  control: ControlEndpoint,
  barrier: BarrierOutcome,
  startAtUnixMs: number,
): Promise<FleetRun> {
  const results = new Map<number, FleetAgentResult>(barrier.early.map((each) => [each.agent, each.file]));
  const lastHeard = new Map<number, number>(barrier.ready.map((agent) => [agent, startAtUnixMs]));
  const alive = new Map<number, Extract<ControlEnvelope, { kind: 'alive' }>>();
  const lost = new Map<number, string>();
  let deadline = startAtUnixMs + options.runBoundMs;
  let abortSent = false;
  const pending = () => barrier.ready.filter((agent) => !results.has(agent) && !lost.has(agent) && !options.gone?.().has(agent));
  while (pending().length > 0 && Date.now() < deadline) {
    if (options.signal?.aborted && !abortSent) {
      abortSent = true;
      await control.send('agents', { kind: 'abort', reason: 'the coordinator was stopped' });
      deadline = Math.min(deadline, Date.now() + 30_000);
    }
    const message = await control.next(
      (each): each is Extract<ControlEnvelope, { kind: 'alive' | 'result' }> => each.kind === 'alive' || each.kind === 'result',
      500,
    );
    if (message?.kind === 'result') {
      results.set(message.agent, message.file);
      options.log(`fleet: agent ${message.agent} delivered (${message.file.status})`);
    } else if (message?.kind === 'alive') {
      alive.set(message.agent, message);
      options.onAlive?.(alive);
    }
    if (message) lastHeard.set(message.agent, Date.now());
    for (const agent of pending()) {
      const silentMs = Date.now() - (lastHeard.get(agent) ?? startAtUnixMs);
      if (silentMs > options.silenceBoundMs) {
        lost.set(
          agent,
          `lost: not heard of for ${Math.round(silentMs / 1000)} s (last at ${((lastHeard.get(agent)! - startAtUnixMs) / 1000).toFixed(1)} s from the start)`,
        );
        options.log(`fleet: agent ${agent} ${lost.get(agent)!}`);
      }
    }
  }
  // Late agents' notices that arrived meanwhile.
  for (;;) {
    const message = await control.next((each): each is Extract<ControlEnvelope, { kind: 'result' }> => each.kind === 'result', 0);
    if (!message) break;
    if (!results.has(message.agent)) results.set(message.agent, message.file);
  }
  for (const agent of pending())
    lost.set(agent, `no result within the run's bound (${Math.round(options.runBoundMs / 1000)} s from the start)`);
  return {
    files: [...results.values()].sort((a, b) => a.agent.index - b.agent.index),
    absent: absentOf(options, barrier, lost, results),
    startAtUnixMs,
  };
}

function absentOf(
  options: CoordinatorOptions,
  barrier: BarrierOutcome,
  lost: ReadonlyMap<number, string>,
  results: ReadonlyMap<number, FleetAgentResult>,
): AbsentAgent[] {
  const gone = options.gone?.() ?? new Map<number, string>();
  const absent: AbsentAgent[] = [];
  for (let agent = 0; agent < options.count; agent += 1) {
    if (results.has(agent) || barrier.early.some((each) => each.agent === agent)) continue;
    const reason =
      gone.get(agent) ??
      lost.get(agent) ??
      (barrier.ready.includes(agent)
        ? 'no result'
        : `not ready within the barrier's bound (${options.barrierBoundMs / 1000} s)${barrier.hello.has(agent) ? '' : '; never reached the broker'}`);
    absent.push({ agent, reason });
  }
  return absent;
}

function missingOf(count: number, ready: readonly number[]): number[] {
  return Array.from({ length: count }, (_, index) => index).filter((index) => !ready.includes(index));
}
