/**
 * A reconnect herd at fleet scale, on this machine: N connections of one client configuration
 * spread over agent processes (each its own connections, like the instances of an application),
 * all dropped at once — closed by the broker by name (the harness's own connections only), or by
 * a restart of a node the harness starts for it — and watched from both sides: the broker side
 * (every reconnection attempt reaches the herd's own fault proxy, one entry per agent) and the
 * clients' (each connection's consumer receiving its probe again). Per agent and merged.
 */
import type { BenchConfig } from '../../config';
import type { ClientSpec } from '../../client/api';
import { nowNs, sleep } from '../../measure/clock';
import { awaitReady } from '../barrier';
import { openControl, type ControlEndpoint } from '../control';
import { startLocalAgents, type LocalAgents } from '../local';
import type { AbsentAgent } from '../merge';
import type { ControlEnvelope, HerdAgentReport } from '../protocol';
import { DEFAULT_BURST_SHARE, herdFigures, herdFindings, type HerdConnectionTimes, type HerdFigures } from './figures';
import type { HerdBrokerChoice } from './room';
import { openHerdTarget, type HerdDrop, type HerdTarget } from './target';

export interface HerdOptions {
  readonly runId: string;
  readonly agents: number;
  readonly connections: number;
  readonly client: ClientSpec;
  readonly drop: HerdDrop;
  /** Where the herd may stand (room.ts). @default 'auto' */
  readonly broker?: HerdBrokerChoice;
  readonly config: Pick<BenchConfig, 'amqpUrl'>;
  readonly barrierBoundMs: number;
  /** From the drop: how long every connection has to consume again. */
  readonly backBoundMs: number;
  /** More than this share of the connections attempting within one 100 ms is a burst (a finding). @default DEFAULT_BURST_SHARE */
  readonly burstShare?: number;
  /** Agents' logs. */
  readonly logDir: string;
  readonly log: (line: string) => void;
  /** Ctrl-C, SIGTERM: stop waiting; everything the herd set up is still taken down. */
  readonly signal?: AbortSignal;
}

export interface HerdAgentOutcome {
  readonly agent: number;
  readonly report: HerdAgentReport | null;
  readonly figures: HerdFigures;
}

export interface HerdRun {
  readonly runId: string;
  readonly client: ClientSpec;
  /** The broker the herd stood on (the shared broker or a node the harness started), why, and its room before the herd. */
  readonly broker: HerdTarget['broker'];
  /** The drop's moment (monotonic ns, decimal): the first herd connection the proxy saw closed, else the start of the drop's call. */
  readonly dropNs: string;
  readonly drop: HerdDrop & { readonly spreadMs: number | null; readonly calledToFirstCloseMs: number | null; readonly closedSeen: number };
  readonly agents: readonly HerdAgentOutcome[];
  readonly merged: HerdFigures;
  readonly absent: readonly AbsentAgent[];
  /** The share of the connections in one 100 ms above which the attempts are a burst. */
  readonly burstShare: number;
  /** What the herd found about the client configuration (a burst, connections never back), each with its figures. */
  readonly findings: readonly string[];
}

type HerdProgress = Extract<ControlEnvelope, { kind: 'herd_progress' }>;

/** Runs one herd; resolves with its figures. @throws when nothing could be set up (the agents and the node are stopped first) */
export async function runHerd(options: HerdOptions): Promise<HerdRun> {
  const target = await openHerdTarget(options);
  let control: ControlEndpoint | undefined;
  let agents: LocalAgents | undefined;
  try {
    control = await openControl(options.config.amqpUrl, options.runId, 'coordinator');
    await control.declareAgentInboxes(options.agents);
    const started = startLocalAgents({
      count: options.agents,
      args: (index) => [
        ...['--agent', String(index), '--agents', String(options.agents), '--run-id', options.runId],
        ...['--connections', String(options.connections), '--client', `${options.client.name}:${options.client.profile}`],
      ],
      command: 'herd',
      env: (index) => ({ BENCH_HERD_URL: target.urlOf(index) }),
      logDir: options.logDir,
      log: options.log,
    });
    agents = started;
    await control.send('agents', { kind: 'setup' });
    const barrier = await awaitReady(
      control,
      options.agents,
      options.barrierBoundMs,
      () => new Set(started.gone().keys()),
      undefined,
      options.signal,
    );
    if (options.signal?.aborted) throw new Error('the herd was stopped (a signal) before the drop');
    if (barrier.ready.length < options.agents)
      throw new Error(`only ${barrier.ready.length} of ${options.agents} herd agents were ready within ${options.barrierBoundMs / 1000} s`);
    options.log(
      `herd: ${options.connections} connections of ${options.client.name}:${options.client.profile} consuming, over ${options.agents} agents`,
    );
    return await dropAndWatch(options, control, target, started);
  } finally {
    await control?.send('agents', { kind: 'abort', reason: 'the herd is over' }).catch(() => undefined);
    await agents?.stop(15_000);
    await control?.deleteAll(options.agents).catch(() => undefined);
    await control?.close();
    await target.close();
  }
}

async function dropAndWatch(options: HerdOptions, control: ControlEndpoint, target: HerdTarget, agents: LocalAgents): Promise<HerdRun> {
  await target.publishProbes();
  await sleep(1000); // every consumer holds its probe
  await control.send('agents', { kind: 'start', start_at_unix_ms: Date.now(), start_mono_ns: nowNs().toString(), machine_id: 'herd' });
  await sleep(500);
  options.log(
    `herd: dropping every connection (${options.drop.kind === 'broker_close' ? 'the broker closes them by name' : `the node stops, stays down ${options.drop.downMs / 1000} s, starts again`})`,
  );
  const { calledNs } = await target.drop();
  const closes = await target.closesAfter(calledNs);
  if (closes.closed < options.connections)
    options.log(`herd: only ${closes.closed} of ${options.connections} connections were seen closed within 15 s of the drop`);
  const dropNs = closes.firstNs ?? calledNs;
  await watchUntilBack(options, control, agents, dropNs);
  await control.send('agents', { kind: 'abort', reason: 'the herd is over' });
  const reports = await collectReports(control, options.agents, agents);
  const outcomes: HerdAgentOutcome[] = Array.from({ length: options.agents }, (_, agent) => {
    const report = reports.get(agent) ?? null;
    return { agent, report, figures: herdFigures(timesOf(report), target.seenBy(agent), dropNs) };
  });
  const gone = agents.gone();
  const merged = herdFigures(
    outcomes.flatMap((each) => timesOf(each.report)),
    outcomes.flatMap((each) => target.seenBy(each.agent)),
    dropNs,
  );
  const burstShare = options.burstShare ?? DEFAULT_BURST_SHARE;
  return {
    runId: options.runId,
    client: options.client,
    broker: target.broker,
    dropNs: dropNs.toString(),
    drop: {
      ...options.drop,
      spreadMs: closes.spreadMs,
      calledToFirstCloseMs: closes.firstNs === null ? null : Number(closes.firstNs - calledNs) / 1e6,
      closedSeen: closes.closed,
    },
    agents: outcomes,
    merged,
    absent: outcomes
      .filter((each) => each.report === null)
      .map((each) => ({ agent: each.agent, reason: gone.get(each.agent) ?? 'no report arrived' })),
    burstShare,
    findings: herdFindings(merged, burstShare, options.backBoundMs),
  };
}

/** Until every connection consumes again (the agents' progress says so) or the bound passes. */
async function watchUntilBack(options: HerdOptions, control: ControlEndpoint, agents: LocalAgents, dropNs: bigint): Promise<void> {
  const progress = new Map<number, HerdProgress>();
  const back = () => [...progress.values()].reduce((sum, each) => sum + each.consuming_again, 0);
  // Done when every agent's connections all consume again (an agent known gone is not waited for).
  const complete = () =>
    Array.from({ length: options.agents }, (_, agent) => agent).every((agent) => {
      const each = progress.get(agent);
      return agents.gone().has(agent) || (each !== undefined && each.consuming_again === each.of);
    });
  let lastLogMs = 0;
  while (!complete() && Number(nowNs() - dropNs) / 1e6 < options.backBoundMs && options.signal?.aborted !== true) {
    const message = await control.next((each): each is HerdProgress => each.kind === 'herd_progress', 250);
    if (message) progress.set(message.agent, message);
    if (Date.now() - lastLogMs > 1000) {
      lastLogMs = Date.now();
      options.log(`  ${(Number(nowNs() - dropNs) / 1e9).toFixed(1).padStart(6)}s  consuming again ${back()}/${options.connections}`);
    }
  }
}

async function collectReports(control: ControlEndpoint, count: number, agents: LocalAgents): Promise<Map<number, HerdAgentReport>> {
  const reports = new Map<number, HerdAgentReport>();
  const deadline = Date.now() + 30_000;
  while (reports.size + [...agents.gone().keys()].filter((agent) => !reports.has(agent)).length < count && Date.now() < deadline) {
    const message = await control.next(
      (each): each is Extract<ControlEnvelope, { kind: 'herd_result' }> => each.kind === 'herd_result',
      250,
    );
    if (message) reports.set(message.agent, message.report);
  }
  return reports;
}

function timesOf(report: HerdAgentReport | null): HerdConnectionTimes[] {
  const ns = (text: string | null) => (text === null ? null : BigInt(text));
  return (report?.connections ?? []).map((each) => ({
    name: each.name,
    faultNs: ns(each.fault_ns),
    consumedAgainNs: ns(each.consumed_again_ns),
  }));
}
