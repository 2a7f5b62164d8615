/**
 * Runs one failover scenario against the benchmark cluster and returns what every thread
 * recorded: a durable queue (classic or quorum) held by the first node -> one proxy entry per
 * node -> consumer threads spread over the nodes (home node first in each one's URL list) and
 * an at-least-once producer with confirms on another node -> warm-up -> the fault -> wait
 * (bounded) until every thread it hit has consumed again -> the fault undone (a killed node
 * restarted, a partition healed) -> the producer settles -> wait (bounded) until every
 * confirmed message was delivered -> stop, account. Whatever happens, the fault is undone,
 * every thread stopped, the proxy entries and the queue removed.
 */
import { randomUUID } from 'node:crypto';
import type { ClientSpec } from '../client/api';
import { WorkerError } from '../errors';
import type { ToxiproxyClient } from '../faults';
import { nowNs, pollUntil, sleep, type Bracket } from '../measure/clock';
import { redactText } from '../redact';
import type { LedgerCounts } from '../suite-kit/accounting';
import { nodeActions } from '../broker/nodes/nodeActions';
import { createFault } from '../faults/kinds/registry';
import type { Fault, FaultHit, FaultStep } from '../faults/model';
import type { FailoverFault } from '../scenarios/cluster';
import type { FailoverThreadReport } from './consumerThread';
import { FailoverWord, type ThreadEpisodes } from './failoverBoard';
import { FailoverThreads, PRODUCER_SETTLE_BOUND_MS, type SettledFailoverReports } from './failoverThreads';
import { nodeAmqpUrl, type ClusterLayout } from '../broker/nodes/layout';
import { createNodeProxies, nodesByClientPort, proxiedNodeUrl, removeNodeProxies, type NodeProxy } from './nodeProxies';
import type { FailoverProducerReport } from './producerThread';
import { declareQueue, deleteQueue, quorumLeader, readyMessages, type FailoverQueueType } from './queues';
import type { ClusterSettings } from '../broker/nodes/settings';
import { assertClusterUp } from '../broker/nodes/state';
import { threadsOn, undeliveredConfirmed, unfinishedEpisodes } from './waits';

export interface FailoverScenarioOptions {
  readonly client: ClientSpec;
  readonly layout: ClusterLayout;
  readonly settings: ClusterSettings;
  readonly proxyApi: ToxiproxyClient;
  readonly fault: FailoverFault;
  readonly queueType: FailoverQueueType;
  /** Consumer threads, spread round robin over the nodes. @default 6 */
  readonly consumers?: number;
  /** @default 200 */
  readonly ratePerSecond?: number;
  /** @default 50 */
  readonly prefetch?: number;
  /** @default 3000 */
  readonly warmupMs?: number;
  /** How long the threads the fault hit get to consume again before it is undone. @default 30000 */
  readonly failoverBoundMs?: number;
  /** A consumer silent this long after the injection gives up on its connection (partition). @default null */
  readonly silenceDeadlineMs?: number | null;
  /** Traffic after the fault is undone, so the returning node serves again. @default 3000 */
  readonly afterRestoreMs?: number;
  /** How long every confirmed message gets to be delivered at the end. @default 30000 */
  readonly drainBoundMs?: number;
  readonly log?: (line: string) => void;
}

export interface ConsumerRecord extends ThreadEpisodes {
  readonly threadIndex: number;
  readonly homeNode: string;
  /** The node its connection went to when the fault came (from the proxy's connection list); null when unknown. */
  readonly nodeAtFault: string | null;
  readonly report:
    FailoverThreadReport | { readonly threadIndex: number; readonly falseAlarms: 0; readonly foreign: 0; readonly error: string };
}

export interface FailoverOutcome {
  readonly queue: string;
  readonly queueType: FailoverQueueType;
  readonly fault: FailoverFault;
  /** The node holding the queue at the start (quorum leader / classic home). */
  readonly queueHolder: string;
  readonly target: string | null;
  readonly hits: readonly FaultHit[];
  readonly steps: readonly FaultStep[];
  readonly injectedNs: bigint;
  readonly restore: Bracket;
  readonly consumers: readonly ConsumerRecord[];
  /** Which node a client port's connection went to (embedded proxy's connection lists; empty with real Toxiproxy). */
  readonly nodeByPort: ReadonlyMap<number, string>;
  readonly producer: ThreadEpisodes & { readonly report: FailoverProducerReport | null };
  readonly ledger: LedgerCounts;
  readonly sequences: number;
  readonly readyLeft: number | null;
  readonly ratePerSecond: number;
  readonly silenceDeadlineMs: number | null;
  /** Problems that are not measurements (a thread error, a fault not undone, a drain that timed out). */
  readonly problems: readonly string[];
}

/** Where the fault acts and who it hits, decided once the queue is declared. */
interface FaultPlacement {
  readonly queueHolder: string;
  readonly fault: Fault;
  /** The node a kill or partition hits; null for a rolling restart (every node in turn). */
  readonly hitNode: string | null;
  /** The node index the producer connects to first. */
  readonly producerHome: number;
}

/** The moments of the fault and which node each client port's connection went to around it. */
interface FaultPhase {
  readonly injectedNs: bigint;
  readonly restore: Bracket;
  readonly portsAtFault: ReadonlyMap<number, string>;
  readonly portsAfterFailover: ReadonlyMap<number, string>;
}

export async function runFailoverScenario(options: FailoverScenarioOptions): Promise<FailoverOutcome> {
  const { layout, settings } = options;
  const log = options.log ?? (() => undefined);
  const consumers = options.consumers ?? 6;
  const ratePerSecond = options.ratePerSecond ?? 200;
  const silenceDeadlineMs = options.silenceDeadlineMs ?? null;
  await assertClusterUp(layout);
  const nodes = layout.nodes;
  const directUrls = nodes.map((node) => nodeAmqpUrl(node, settings));
  const queue = `amqp-bench.failover.${randomUUID()}`;
  // Long enough for the longest scenario (a rolling restart of three nodes on a busy machine).
  const threads = new FailoverThreads(consumers, Math.ceil(ratePerSecond * 600));
  const problems: string[] = [];
  let proxies: NodeProxy[] = [];
  let fault: Fault | undefined;
  try {
    proxies = await createNodeProxies(options.proxyApi, nodes);
    const urlsFrom = (first: number) => nodes.map((_, offset) => proxiedNodeUrl(proxies[(first + offset) % nodes.length]!, settings));
    await declareQueue(directUrls[0]!, queue, options.queueType);
    const placement = await placeFault(options, proxies, queue, log);
    fault = placement.fault;
    threads.start({
      client: options.client,
      queue,
      consumerUrls: (thread) => urlsFrom(thread % nodes.length),
      producerUrls: urlsFrom(placement.producerHome),
      prefetch: options.prefetch ?? 50,
      silenceDeadlineMs,
      ratePerSecond,
    });
    await threads.waitUntilConnected();
    await warmUp(threads, options.warmupMs ?? 3000);
    const phase = await injectAndFailOver(options, threads, proxies, placement, problems, log);
    await drainConfirmed(threads, options.drainBoundMs ?? 30_000, problems);
    const portsAtEnd = await nodesByClientPort(proxies);
    // Before the consumers close: their unprocessed prefetch would be requeued and counted as left over.
    const readyLeft = await readyMessages(directUrls, queue);
    const reports = await threads.settle();
    if (reports.producer?.error) problems.push(`producer: ${reports.producer.error}`);
    const { board } = threads;
    return {
      queue,
      queueType: options.queueType,
      fault: options.fault,
      queueHolder: placement.queueHolder,
      target: placement.hitNode,
      hits: placement.fault.hits,
      steps: placement.fault.steps,
      injectedNs: phase.injectedNs,
      restore: phase.restore,
      consumers: consumerRecords(threads, reports, layout, phase.portsAtFault, problems),
      nodeByPort: new Map([...phase.portsAtFault, ...phase.portsAfterFailover, ...portsAtEnd]),
      producer: { ...board.read(consumers), report: reports.producer },
      ledger: threads.ledger.snapshot(),
      sequences: board.flag(FailoverWord.SEQUENCES),
      readyLeft,
      ratePerSecond,
      silenceDeadlineMs,
      problems,
    };
  } finally {
    await threads.stop();
    const undone = fault ? (await fault.remove()).problems : [];
    for (const problem of undone) log(`cleanup: ${problem}`);
    await removeNodeProxies(proxies);
    const deleteProblem = await deleteQueue(directUrls, queue);
    if (deleteProblem) log(`cleanup: queue ${queue} not deleted: ${redactText(deleteProblem)}`);
  }
}

/** Finds the node holding the queue and builds the fault on it (every node for a rolling restart). */
async function placeFault(
  options: FailoverScenarioOptions,
  proxies: readonly NodeProxy[],
  queue: string,
  log: (line: string) => void,
): Promise<FaultPlacement> {
  const { layout } = options;
  const nodes = layout.nodes;
  const holderNode = nodes[0]!;
  // A classic queue lives where it was declared; a quorum queue's leader starts there too, unless the CLI says otherwise.
  const queueHolder =
    options.queueType === 'quorum'
      ? ((await quorumLeader(layout, holderNode, queue).catch(() => undefined)) ?? holderNode.name)
      : holderNode.name;
  const target = nodes.find((node) => node.name === queueHolder) ?? holderNode;
  const actions = nodes.map((node) => nodeActions(layout, node, proxies.find((proxy) => proxy.node.name === node.name)?.target));
  const fault = createFault({ kind: options.fault }, { node: actions[nodes.indexOf(target)], nodes: actions, log });
  const hitNode = fault.target.type === 'node' ? fault.target.name : null;
  const producerHome = options.fault === 'rolling_restart' ? 1 : (target.index + 1) % nodes.length;
  return { queueHolder, fault, hitNode, producerHome };
}

/** Lets every thread run for the warm-up. @throws WorkerError when a consumer thread got no message in it. */
async function warmUp(threads: FailoverThreads, warmupMs: number): Promise<void> {
  const { board } = threads;
  board.raise(FailoverWord.GO);
  await sleep(warmupMs);
  const silent = Array.from({ length: threads.consumers }, (_, thread) => thread).filter((thread) => board.messages(thread) === 0);
  if (silent.length > 0)
    throw new WorkerError(`no message reached consumer threads ${silent.join(', ')} during the ${warmupMs} ms warm-up`);
}

/** Injects the fault, waits (bounded) until every thread it hit consumes again, undoes it, waits for every thread again. */
async function injectAndFailOver(
  options: FailoverScenarioOptions,
  threads: FailoverThreads,
  proxies: readonly NodeProxy[],
  placement: FaultPlacement,
  problems: string[],
  log: (line: string) => void,
): Promise<FaultPhase> {
  const { board, consumers } = threads;
  const failoverBoundMs = options.failoverBoundMs ?? 30_000;
  const portsAtFault = await nodesByClientPort(proxies);
  board.raise(FailoverWord.INJECTED);
  const injectedNs = nowNs();
  log(`${options.fault}: ${placement.hitNode ?? 'every node in turn'} (queue ${options.queueType}, held by ${placement.queueHolder})`);
  await placement.fault.inject();
  const hitThreads = threadsOn(board, consumers, portsAtFault, placement.hitNode);
  // Every thread the fault hit must get an episode and consume again; the rest must keep consuming.
  const failedOver = await pollUntil(
    () => unfinishedEpisodes(board, consumers + 1, hitThreads).length === 0 || board.flag(FailoverWord.FAILED) > 0,
    failoverBoundMs,
  );
  if (!failedOver) log(`not every thread consumed again within ${failoverBoundMs} ms; undoing the fault`);
  const portsAfterFailover = await nodesByClientPort(proxies);
  const restoreStartedNs = nowNs();
  problems.push(...(await placement.fault.remove()).problems);
  const restore: Bracket = { startedNs: restoreStartedNs, completedNs: nowNs() };
  await pollUntil(() => unfinishedEpisodes(board, consumers + 1, []).length === 0, failoverBoundMs);
  await sleep(options.afterRestoreMs ?? 3000);
  return { injectedNs, restore, portsAtFault, portsAfterFailover };
}

/** Stops the producer and waits (bounded) until every confirmed message was delivered. */
async function drainConfirmed(threads: FailoverThreads, drainBoundMs: number, problems: string[]): Promise<void> {
  const { board, ledger } = threads;
  board.raise(FailoverWord.STOP_PRODUCING);
  await board.waitFor(FailoverWord.PRODUCER_SETTLED, 1, PRODUCER_SETTLE_BOUND_MS + 10_000);
  const drained = await pollUntil(
    () => undeliveredConfirmed(ledger.snapshot(), board.flag(FailoverWord.SEQUENCES)) === 0,
    drainBoundMs,
    200,
  );
  if (!drained) problems.push(`confirmed messages still undelivered ${drainBoundMs} ms after the producer stopped`);
}

/** Each consumer thread's episodes, home node and report (a thread that gave none: its error). */
function consumerRecords(
  threads: FailoverThreads,
  reports: SettledFailoverReports,
  layout: ClusterLayout,
  portsAtFault: ReadonlyMap<number, string>,
  problems: string[],
): ConsumerRecord[] {
  const nodes = layout.nodes;
  return reports.consumers.map((settled, threadIndex): ConsumerRecord => {
    const report =
      settled.status === 'fulfilled'
        ? settled.value
        : {
            threadIndex,
            falseAlarms: 0 as const,
            foreign: 0 as const,
            error: settled.status === 'rejected' ? redactText(String(settled.reason)) : 'did not stop in time',
          };
    if (report.error) problems.push(`consumer thread ${threadIndex}: ${report.error}`);
    const episodes = threads.board.read(threadIndex);
    return {
      threadIndex,
      homeNode: nodes[threadIndex % nodes.length]!.name,
      nodeAtFault: portsAtFault.get(episodes.firstPort) ?? null,
      ...episodes,
      report,
    };
  });
}
