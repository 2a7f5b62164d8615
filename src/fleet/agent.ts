/**
 * One agent of a fleet: the same load run as `bench load`, on the share of the workload its index
 * gives it (split.ts), behind the start barrier, and its result sent to the coordinator through
 * the broker (and written as agent-<index>.json when asked). What starts it — a process here, a
 * pod of a Kubernetes Indexed Job, a CI matrix job — is the engine's business; the agent only
 * needs its index, the count and the run id.
 */
import os from 'node:os';
import { describeError } from '../errors';
import { nowNs, sleep } from '../measure/clock';
import { runLoadDetailed, type LoadRunDetail, type LoadRunOptions } from '../load/run';
import type { LoadRecorder } from '../load/recorder';
import type { LoadWorkload } from '../load/workload';
import { fileResultOf, machineId, sequenceBitsOf, type FleetAgentResult } from './agentResult';
import { fromWallClock, isLate, startFromMessage, type StartInstant, type StartMessage } from './barrier';
import { openControl, type ControlEndpoint } from './control';
import type { ControlEnvelope } from './protocol';
import { agentPlan, type AgentPlan } from './split';

/** How often a running agent tells the coordinator it is alive. */
export const ALIVE_EVERY_MS = 1000;

export type AgentBarrier =
  { readonly mode: 'coordinator'; readonly boundMs: number } | { readonly mode: 'start_at'; readonly startAtUnixMs: number };

export interface AgentOptions extends Pick<
  LoadRunOptions,
  'config' | 'viaProxy' | 'intervalMs' | 'catchUpMs' | 'drainMs' | 'signal' | 'log' | 'metricsPort'
> {
  readonly runId: string;
  readonly index: number;
  readonly count: number;
  readonly workload: LoadWorkload;
  readonly barrier: AgentBarrier;
}

/** Thrown by the start gate when the start was already past: the agent does not run. */
class LateError extends Error {}

/** Runs the agent's share; resolves with its result file (sent to the coordinator in coordinator mode). */
export async function runAgent(options: AgentOptions): Promise<FleetAgentResult> {
  const plan = agentPlan(options.workload, options.count, options.index);
  const control = options.barrier.mode === 'coordinator' ? await openControl(options.config.amqpUrl, options.runId, options.index) : null;
  const abort = new AbortController();
  const onOuterAbort = () => abort.abort();
  options.signal?.addEventListener('abort', onOuterAbort);
  const state: AgentState = { readyAtUnixMs: null, start: null, startAtUnixMs: null, recorder: null };
  let file: FleetAgentResult;
  try {
    if (control) {
      await control.send('coordinator', {
        kind: 'hello',
        agent: options.index,
        host: os.hostname(),
        machine_id: machineId(),
        pid: process.pid,
      });
      watchForAbort(control, abort, options.log);
    }
    file = await runShare(options, plan, control, state, abort.signal);
    if (control) await control.send('coordinator', { kind: 'result', agent: options.index, file });
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
    abort.abort();
    await control?.close();
  }
  return file;
}

interface AgentState {
  readyAtUnixMs: number | null;
  start: StartInstant | null;
  startAtUnixMs: number | null;
  recorder: LoadRecorder | null;
}

async function runShare(
  options: AgentOptions,
  plan: AgentPlan,
  control: ControlEndpoint | null,
  state: AgentState,
  signal: AbortSignal,
): Promise<FleetAgentResult> {
  let detail: LoadRunDetail | null = null;
  let status: FleetAgentResult['status'] = 'completed';
  let error: string | null = null;
  let alive: NodeJS.Timeout | undefined;
  try {
    if (control && !(await control.next((each): each is ControlEnvelope => each.kind === 'setup', boundOf(options))))
      throw new Error(
        `no coordinator said setup within ${boundOf(options) / 1000} s (is \`bench load --coordinate\` running for run ${options.runId}?)`,
      );
    detail = await runLoadDetailed({
      ...options,
      signal,
      share: plan.share,
      // With a coordinator, it owns the queues; without one, an agent owns those no other agent uses.
      queueOwnership: options.barrier.mode === 'start_at' && plan.ownsQueues ? 'fresh' : 'shared',
      connectionNamePrefix: `bench-load-${options.runId}-a${options.index}`,
      keepIntervalHistograms: true,
      startGate: async () => {
        const startNs = await passBarrier(options, control, state);
        if (control) alive = startAlive(control, options.index, state);
        return startNs;
      },
      onPoint: (_point, recorder) => {
        state.recorder = recorder;
      },
    });
    if (detail.result.aborted) {
      status = 'aborted';
      error = 'stopped before the end (a signal, or the coordinator said abort): figures cover the part that ran';
    }
  } catch (caught) {
    status = caught instanceof LateError ? 'late' : 'failed';
    error = describeError(caught);
    options.log(`agent ${options.index}: ${error}`);
  } finally {
    clearInterval(alive);
  }
  return resultFile(options, plan, state, { status, error, detail });
}

function boundOf(options: AgentOptions): number {
  return options.barrier.mode === 'coordinator' ? options.barrier.boundMs : 0;
}

/** Says ready, waits for the start, and returns it as this process's monotonic ns. @throws LateError */
async function passBarrier(options: AgentOptions, control: ControlEndpoint | null, state: AgentState): Promise<bigint> {
  const here = () => ({ machineId: machineId(), nowNs: nowNs(), nowUnixMs: Date.now() });
  state.readyAtUnixMs = Date.now();
  let start: StartInstant;
  if (options.barrier.mode === 'start_at') {
    state.startAtUnixMs = options.barrier.startAtUnixMs;
    start = fromWallClock(options.barrier.startAtUnixMs, here());
  } else {
    await control!.send('coordinator', { kind: 'ready', agent: options.index });
    const message = await control!.next((each): each is StartMessage => each.kind === 'start', options.barrier.boundMs);
    if (!message)
      throw new Error(`no start within ${options.barrier.boundMs / 1000} s of being ready (the coordinator gave up or is gone)`);
    state.startAtUnixMs = message.start_at_unix_ms;
    start = startFromMessage(message, here());
  }
  if (isLate(start)) throw new LateError(`the start was ${Math.round(start.lateMs)} ms past when this agent was ready: it did not run`);
  state.start = start;
  return start.startNs;
}

function startAlive(control: ControlEndpoint, index: number, state: AgentState): NodeJS.Timeout {
  return setInterval(() => {
    const recorder = state.recorder;
    const tS = state.start ? Math.round(Number(nowNs() - state.start.startNs) / 1e6) / 1000 : 0;
    void control
      .send('coordinator', {
        kind: 'alive',
        agent: index,
        t_s: tS,
        published: recorder?.totals.published ?? 0,
        consumed: recorder?.totals.consumed ?? 0,
      })
      .catch(() => undefined);
  }, ALIVE_EVERY_MS);
}

/** Aborts the run when the coordinator says so. */
function watchForAbort(control: ControlEndpoint, abort: AbortController, log: (line: string) => void): void {
  void (async () => {
    while (!abort.signal.aborted) {
      const message = await control.next((each): each is Extract<ControlEnvelope, { kind: 'abort' }> => each.kind === 'abort', 1000);
      if (message) {
        log(`agent: the coordinator said abort (${message.reason})`);
        abort.abort();
      }
      await sleep(0);
    }
  })();
}

function resultFile(
  options: AgentOptions,
  plan: AgentPlan,
  state: AgentState,
  outcome: { status: FleetAgentResult['status']; error: string | null; detail: LoadRunDetail | null },
): FleetAgentResult {
  const { start } = state;
  return {
    schema_version: 1,
    run_id: options.runId,
    agent: { index: options.index, count: options.count, host: os.hostname(), machine_id: machineId(), pid: process.pid },
    share: { producers: [...plan.share.producers], consumers: [...plan.share.consumers], accounts_alone: plan.accountsAlone },
    barrier: {
      mode: options.barrier.mode,
      ready_at_unix_ms: state.readyAtUnixMs,
      start_at_unix_ms: state.startAtUnixMs,
      started_at_unix_ms: start && outcome.detail ? Date.now() - Number(nowNs() - start.startNs) / 1e6 : null,
      start_clock: start && outcome.detail ? start.clock : 'none',
      start_message_delay_ms: start?.messageDelayMs ?? null,
    },
    status: outcome.status,
    error: outcome.error,
    result: outcome.detail ? fileResultOf(outcome.detail.result) : null,
    interval_histograms: outcome.detail ? [...outcome.detail.intervalHistograms] : [],
    sequence_bits: sequenceBitsOf(outcome.detail),
  };
}
