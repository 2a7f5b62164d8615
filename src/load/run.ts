/**
 * One load run, from set-up to the last socket closed: where the clients go and the fault
 * schedule (setup.ts), the clients of its share (clients.ts), the pacing loop, the sampler and the
 * metrics endpoint. Everything opened is closed in `finally`, on an error and on an abort
 * (Ctrl-C) too. A process running the whole workload and an agent of a fleet running its share
 * go through the same steps; the agent adds a start barrier (`startGate`).
 */
import { clientInfo } from '../client/registry';
import { clientLabel } from '../client/api';
import { nowNs, pollUntil, sleep } from '../measure/clock';
import { checkSupported, placeFaults } from './checks';
import { connectLoadClients, type LoadClients } from './clients';
import type { FaultWindowRecord } from './faultSchedule';
import { startMetricsEndpoint, type MetricsEndpoint } from './metricsEndpoint';
import { LoadRecorder } from './recorder';
import { buildLoadResult, type ConnectionFaultRecord, type LoadResult } from './result';
import { scheduleOf, type Schedule } from './schedule';
import { openLoadSetup, type LoadSetup, type LoadSetupConfig, type QueueOwnership } from './setup';
import { accountsAlone, messagesOfShare, queueIndexesOf, wholeShare, type LoadShare } from './share';
import { startSampler, type IntervalHistograms, type TimeSeriesPoint, type TimeSeriesSampler } from './timeseries';
import { startPublishing, type Publishing } from './traffic';
import { queueName, scheduleEndMs, type LoadWorkload } from './workload';

/** A moment for the consumers to start before the first message is due (a run alone). */
const CONSUMER_START_LEAD_NS = 20_000_000n;

export interface LoadRunOptions {
  readonly workload: LoadWorkload;
  readonly config: LoadSetupConfig;
  /** Through the fault proxy (needed for proxy faults). @default true */
  readonly viaProxy: boolean;
  /** Time-series interval. @default 1000 */
  readonly intervalMs: number;
  /** Serve live metrics on this port (0 = a free one); undefined = no endpoint. */
  readonly metricsPort?: number;
  /** How long a publisher still behind schedule at the end keeps sending. @default 10000 */
  readonly catchUpMs: number;
  /** How long to wait for consumers to drain what was published. @default 15000 */
  readonly drainMs: number;
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
  /** Each time-series point as it is taken (progress lines). */
  readonly onPoint?: (point: TimeSeriesPoint, recorder: LoadRecorder) => void;
  /**
   * Runs after the measured part and the drain, before anything is closed, with the URL the
   * clients used (`--compare-bare` runs the bare script there, under the same conditions).
   */
  readonly alongside?: (url: string, recorder: LoadRecorder) => Promise<void>;
  /** Called once the metrics endpoint listens. */
  readonly onMetrics?: (url: string) => void;
  /** The producers and consumers this process runs. @default all of them */
  readonly share?: LoadShare;
  /** @default fresh */
  readonly queueOwnership?: QueueOwnership;
  /** Prefix of the clients' connection names. @default bench-load-<pid>-<time> */
  readonly connectionNamePrefix?: string;
  /**
   * The start barrier: called once every client is connected and consuming; resolves with the
   * monotonic ns the schedule starts at (an agent of a fleet waits for the others here).
   * @default a moment from now
   */
  readonly startGate?: () => Promise<bigint>;
  /** Keep each time-series interval's histograms (a fleet merges its points from them). @default false */
  readonly keepIntervalHistograms?: boolean;
}

/** A run's result and what a fleet's merge needs besides it. */
export interface LoadRunDetail {
  readonly result: LoadResult;
  /** One entry per time-series point when asked (`keepIntervalHistograms`). */
  readonly intervalHistograms: readonly IntervalHistograms[];
  /** Sequence numbers consumed and confirmed, one bit each. */
  readonly sequenceBits: ReturnType<LoadRecorder['sequenceBits']>;
}

/** Runs `options.workload`; resolves with its result (also when aborted: then `aborted` is true). */
export async function runLoad(options: LoadRunOptions): Promise<LoadResult> {
  return (await runLoadDetailed(options)).result;
}

/** `runLoad` with what a fleet's merge needs besides the result. */
export async function runLoadDetailed(options: LoadRunOptions): Promise<LoadRunDetail> {
  const { workload, log } = options;
  checkSupported(workload);
  const placement = placeFaults(workload, options.viaProxy);
  const prefix = options.connectionNamePrefix ?? `bench-load-${process.pid}-${Date.now().toString(36)}`;
  const queues = Array.from({ length: workload.queues }, (_, index) => queueName(workload.queuePattern, index));
  // A share declares (and, owning them, deletes) only the queues its producers and consumers use.
  const declared = options.share ? queueIndexesOf(options.share, workload.queues).map((index) => queues[index]!) : queues;
  let setup: LoadSetup | undefined;
  let clients: LoadClients | undefined;
  try {
    setup = await openLoadSetup({
      workload,
      config: options.config,
      viaProxy: options.viaProxy,
      placement,
      queues: declared,
      queueOwnership: options.queueOwnership ?? 'fresh',
      connectionNamePrefix: prefix,
      log,
    });
    clients = await connectLoadClients({
      workload,
      share: options.share ?? wholeShare(workload),
      url: setup.url,
      queues,
      connectionNamePrefix: prefix,
      log,
    });
    return await measure(options, setup, clients);
  } finally {
    await setup?.faults.stop(async () => null).catch(() => undefined);
    await clients?.close();
    await setup?.close();
  }
}

interface Measured {
  readonly recorder: LoadRecorder;
  readonly schedule: Schedule;
  readonly totalMessages: number;
  readonly sampler: TimeSeriesSampler;
}

/** The measured part: from the start (after the barrier) to the drain, then the result. */
async function measure(options: LoadRunOptions, setup: LoadSetup, clients: LoadClients): Promise<LoadRunDetail> {
  const { workload } = options;
  const share = options.share ?? wholeShare(workload);
  const aborted = () => options.signal?.aborted === true;
  const startNs = options.startGate ? await options.startGate() : nowNs() + CONSUMER_START_LEAD_NS;
  const recorder = new LoadRecorder(startNs, startNs + BigInt(workload.warmupMs) * 1_000_000n);
  await clients.startConsumers(recorder);
  const schedule = scheduleOf(workload.rate);
  const endMs = scheduleEndMs(workload);
  const scheduleEndNs = startNs + BigInt(endMs) * 1_000_000n;
  const totalMessages = schedule.paced ? schedule.dueBy(endMs * 1e6) : Number.POSITIVE_INFINITY;
  while (nowNs() < startNs) await sleep(1);
  let publishing: Publishing | undefined;
  const onAbort = () => publishing?.stop();
  options.signal?.addEventListener('abort', onAbort);
  const live = await startLiveFigures(options, setup, clients, recorder, () => publishing?.outstanding() ?? 0);
  try {
    setup.faults.start(startNs);
    publishing = startPublishing({
      producers: clients.producers,
      producerCount: workload.producers,
      schedule,
      size: workload.size,
      confirmWindow: workload.confirmWindow,
      recorder,
      totalMessages,
      scheduleEndNs,
      giveUpNs: scheduleEndNs + BigInt(options.catchUpMs) * 1_000_000n,
    });
    if (aborted()) publishing.stop();
    const published = await publishing.done;
    // As fast as possible: the rate counts until the broker has taken everything (one round
    // trip behind the last message on each channel), as the bare script's does.
    if (!schedule.paced && !aborted()) await Promise.allSettled(clients.producers.map((plan) => plan.publisher.flush(10_000)));
    const publishingEndedNs = nowNs();
    // Confirms still due, then what the consumers have yet to take (both bounded).
    const running = publishing;
    await pollUntil(() => running.outstanding() === 0 || aborted(), 10_000, 20);
    if (share.consumers.length > 0 && !aborted()) await drained(recorder, options.drainMs, aborted);
    const endedNs = nowNs();
    live.sampler.stop();
    const proxy = setup.proxy;
    const windows = await setup.faults.stop(() => (proxy ? proxy.client.events(proxy.name, startNs) : Promise.resolve(null)));
    if (options.alongside && !aborted()) await options.alongside(setup.url, recorder);
    const measured: Measured = { recorder, schedule, totalMessages, sampler: live.sampler };
    const result = resultOf(options, measured, clients, { unsent: published.unsent, publishingEndedNs, endedNs, windows });
    return { result, intervalHistograms: live.sampler.intervalHistograms, sequenceBits: recorder.sequenceBits() };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    publishing?.stop();
    live.sampler.stop();
    await live.metrics?.close();
  }
}

/** The sampler and (when asked) the metrics endpoint. */
async function startLiveFigures(
  options: LoadRunOptions,
  setup: LoadSetup,
  clients: LoadClients,
  recorder: LoadRecorder,
  outstanding: () => number,
): Promise<{ sampler: TimeSeriesSampler; metrics: MetricsEndpoint | undefined }> {
  let last: TimeSeriesPoint | undefined;
  const sampler = startSampler({
    recorder,
    intervalMs: options.intervalMs,
    outstandingConfirms: outstanding,
    connectionsUp: () => clients.up(),
    faultState: () => setup.faults.state(),
    nowNs,
    keepIntervalHistograms: options.keepIntervalHistograms ?? false,
    onPoint: (point) => {
      last = point;
      options.onPoint?.(point, recorder);
    },
  });
  if (options.metricsPort === undefined) return { sampler, metrics: undefined };
  try {
    const metrics = await startMetricsEndpoint(options.metricsPort, {
      recorder,
      outstandingConfirms: outstanding,
      connectionsUp: () => clients.up(),
      faultState: () => setup.faults.state(),
      lastPoint: () => last,
    });
    options.onMetrics?.(metrics.url);
    return { sampler, metrics };
  } catch (error) {
    sampler.stop();
    throw error;
  }
}

function resultOf(
  options: LoadRunOptions,
  measured: Measured,
  clients: LoadClients,
  ended: { unsent: number; publishingEndedNs: bigint; endedNs: bigint; windows: readonly FaultWindowRecord[] },
): LoadResult {
  const { workload } = options;
  const { recorder, schedule, totalMessages } = measured;
  const share = options.share ?? wholeShare(workload);
  const startNs = recorder.startNs;
  const spec = { name: workload.client.name, profile: workload.client.profile };
  const connectionFaults: ConnectionFaultRecord[] = clients.supervisors.flatMap((supervisor, index) =>
    supervisor.faults.map((fault) => ({
      connection: clients.connections[index]!.role,
      kind: fault.kind,
      detectedAtMs: msFrom(startNs, fault.detectedNs),
      backAtMs: fault.backNs === null ? null : msFrom(startNs, fault.backNs),
    })),
  );
  const ofShare = (total: number) => messagesOfShare(total, share, workload.producers);
  return buildLoadResult({
    workload,
    client: { label: `${clientLabel(spec)} via the client adapter interface`, info: clientInfo(spec) },
    viaProxy: options.viaProxy,
    recorder,
    schedulePaced: schedule.paced,
    totalMessages: schedule.paced ? ofShare(totalMessages) : totalMessages,
    intendedMeasured: schedule.paced ? ofShare(totalMessages) - ofShare(schedule.dueBy(workload.warmupMs * 1e6)) : null,
    unsent: ended.unsent,
    measuredMs: schedule.paced ? workload.durationMs : msFrom(startNs, ended.publishingEndedNs) - workload.warmupMs,
    publishingEndedMs: msFrom(startNs, ended.publishingEndedNs),
    endedMs: msFrom(startNs, ended.endedNs),
    points: measured.sampler.points,
    faults: ended.windows,
    connectionFaults,
    aborted: options.signal?.aborted === true,
    intervalMs: options.intervalMs,
    ...(options.share ? { accountsAlone: accountsAlone(options.share, workload) } : {}),
  });
}

function msFrom(startNs: bigint, ns: bigint): number {
  return Math.round(Number(ns - startNs) / 1000) / 1000;
}

/** Waits until every message published was consumed, or nothing new arrived for 3 s, within `boundMs`. */
async function drained(recorder: LoadRecorder, boundMs: number, aborted: () => boolean): Promise<void> {
  const deadline = Date.now() + boundMs;
  let lastCount = recorder.totals.consumed;
  let lastChange = Date.now();
  while (Date.now() < deadline && !aborted()) {
    if (recorder.consumedUnique >= recorder.totals.published) return;
    if (recorder.totals.consumed !== lastCount) {
      lastCount = recorder.totals.consumed;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 3000) return;
    await sleep(20);
  }
}
