/**
 * Consume harness overhead: the same consume workload (one connection, N consumers, manual ack,
 * the same prefetch) through the harness (a consumer thread of a sustained consume session, the
 * client under test behind the client interface) and through the bare script (the same library
 * alone, its own process), taking turns on the same queue fed by the same producers: pair after
 * pair, the side that goes first alternating. Each turn starts its consumers, warms up for the
 * same time, counts one window of the same length, and cancels; each starts once the producers
 * have the queue back at its low watermark. Both sides keep their connection open between turns.
 */
import type { ClientSpec } from '../client/api';
import { startBareConsumer, type BareConsumer } from './bareConsume';
import { resolveConsumeWorkload, type ConsumeWorkload } from './consumePlan';
import type { ConsumeWindow, DepthSummary } from './consumeRates';
import { openConsumeSession, type ConsumeSessionReport } from './consumeSession';
import type { Watermarks } from './watermarks';

export interface ConsumeOverheadOptions {
  readonly url: string;
  readonly client: ClientSpec;
  /** The bare module (scripts/bare/<client>.js) of the same library. */
  readonly bareClient: string;
  readonly consumers: number;
  /** @default 100 */
  readonly prefetch?: number;
  /** @default 256 */
  readonly messageSizeBytes?: number;
  /** Pairs of windows (harness + bare). @default 5 */
  readonly pairs?: number;
  /** @default 3000 */
  readonly windowMs?: number;
  /** @default 1000 */
  readonly warmupMs?: number;
  /** @default 2 */
  readonly producerThreads?: number;
  /** @default watermarksFor(consumers, prefetch, messageSizeBytes) */
  readonly watermarks?: Watermarks;
}

/** The bare side of a pair: its rate, and the queue during its window. */
export interface BareWindow {
  readonly consumeRateMsgsPerSec: number;
  readonly durationMs: number;
  readonly delivered: number;
  /** CPU time of the bare consuming thread per delivery, in µs (null where unknown). */
  readonly cpuUsPerMessage: number | null;
  readonly depth: DepthSummary;
}

export interface ConsumePair {
  readonly first: 'harness' | 'bare';
  readonly harness: ConsumeWindow;
  readonly bare: BareWindow;
}

export interface ConsumeOverheadOutcome {
  readonly workload: ConsumeWorkload;
  readonly bareClient: string;
  readonly pairs: readonly ConsumePair[];
  readonly report: ConsumeSessionReport;
}

/**
 * Runs the pairs.
 * @throws WorkerError or BenchError when a side fails (everything is closed first).
 */
export async function measureConsumeOverhead(options: ConsumeOverheadOptions): Promise<ConsumeOverheadOutcome> {
  const pairCount = options.pairs ?? 5;
  const workload = resolveConsumeWorkload({
    consumers: options.consumers,
    prefetch: options.prefetch,
    messageSizeBytes: options.messageSizeBytes,
    consumerThreads: 1,
    producerThreads: options.producerThreads,
    rounds: 1,
    windowMs: options.windowMs,
    warmupMs: options.warmupMs,
    watermarks: options.watermarks,
  });
  const session = await openConsumeSession({ url: options.url, client: options.client, workload });
  const pairs: ConsumePair[] = [];
  let bare: BareConsumer | undefined;
  let report: ConsumeSessionReport;
  try {
    bare = await startBareConsumer({
      url: options.url,
      queue: session.queue,
      client: options.bareClient,
      consumers: workload.consumers,
      prefetch: workload.prefetch,
      warmupMs: workload.warmupMs,
      windowMs: workload.windowMs,
    });
    const started = bare;
    // Every turn starts with the queue as full as the first: the producers top it up between turns.
    const runHarness = async (): Promise<ConsumeWindow> => {
      await session.waitUntilFull();
      return (await session.runPhase(1)).windows[0]!;
    };
    const runBare = async (): Promise<BareWindow> => {
      await session.waitUntilFull();
      const run = await started.run();
      return {
        consumeRateMsgsPerSec: run.msgs_per_sec,
        durationMs: run.seconds * 1000,
        delivered: run.messages,
        cpuUsPerMessage: run.cpuMs === null || run.messages === 0 ? null : (run.cpuMs * 1000) / run.messages,
        depth: session.depthDuring(run.startedNs, run.endedNs),
      };
    };
    for (let pair = 0; pair < pairCount; pair += 1) {
      const first = pair % 2 === 0 ? 'harness' : 'bare';
      if (first === 'harness') {
        const harness = await runHarness();
        pairs.push({ first, harness, bare: await runBare() });
      } else {
        const bareWindow = await runBare();
        pairs.push({ first, harness: await runHarness(), bare: bareWindow });
      }
    }
  } finally {
    await bare?.close();
    report = await session.close();
  }
  return { workload, bareClient: options.bareClient, pairs, report };
}
