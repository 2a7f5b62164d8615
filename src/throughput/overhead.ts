/**
 * Harness overhead: the same plain publish workload (one connection, one channel, N messages
 * of S bytes) through the harness (one worker thread of a publish session) and through the bare
 * amqplib script (its own process), alternating which runs first, pair after pair. Both sides
 * keep one long-lived connection warmed up before the first timed run: a fresh process and
 * connection per bare run measured some 20-35% slower here (noisy) than the same code on a warm
 * connection, which would flatter the harness. Both publish into the session's queue; after
 * each run the queue is checked to hold exactly what was published, then purged.
 */
import { resolvePublishWorkload } from './plan';
import { DEFAULT_CLIENT, type ClientSpec } from '../client/api';
import { adapterOf } from '../client/registry';
import { bareClientOf, bareProgramOf, startBarePublisher, type BarePublisher } from '../suite-kit/barePublish';
import type { OverheadPair } from './result';
import { openPublishSession, type RoundOutcome } from './session';

export interface OverheadOptions {
  readonly url: string;
  /** The client whose harness path is measured against its library's bare script. @default amqplib (defaults) */
  readonly client?: ClientSpec;
  /** Messages per timed run, on each side. @default 20000 */
  readonly messages?: number;
  /** @default 256 */
  readonly messageSizeBytes?: number;
  /** Pairs of runs (harness + bare). @default 5 */
  readonly pairs?: number;
  /** Bound on the bare script's start-up (with its warm-up) and on each of its runs. @default 60000 */
  readonly bareTimeoutMs?: number;
}

export interface BareRunCheck {
  readonly published: number;
  readonly received: number;
}

export interface OverheadOutcome {
  readonly messages: number;
  readonly messageSizeBytes: number;
  readonly pairs: readonly OverheadPair[];
  /** Every harness round, warm-up first. */
  readonly harnessRounds: readonly RoundOutcome[];
  /** What the bare warm-up and each bare run published, and what the queue held afterwards. */
  readonly bareRuns: readonly BareRunCheck[];
  /** Publish errors on the harness side (the bare script fails outright instead). */
  readonly errors: number;
}

export async function measureHarnessOverhead(options: OverheadOptions): Promise<OverheadOutcome> {
  const messages = options.messages ?? 20_000;
  const messageSizeBytes = options.messageSizeBytes ?? 256;
  const pairCount = options.pairs ?? 5;
  const workload = resolvePublishWorkload({
    threads: 1,
    messagesPerThread: messages,
    messageSizeBytes,
    mode: 'plain',
    rounds: pairCount,
    warmupRounds: 1,
    maxWorkerThreads: 1,
  });
  // The client's harness path (its profile's settings) against its library alone, side by side.
  const client = options.client ?? DEFAULT_CLIENT;
  // One warm-up round on each side, alike: no extra warm-up for the harness's threads alone.
  const session = await openPublishSession({ url: options.url, workload, client, firstUseWarmupPublishesPerThread: 0 });
  const harnessRounds: RoundOutcome[] = [];
  const bareRuns: BareRunCheck[] = [];
  const pairs: OverheadPair[] = [];
  let bare: BarePublisher | undefined;
  try {
    harnessRounds.push(await session.runRound());
    bare = await startBarePublisher({
      url: options.url,
      library: bareClientOf(client),
      program: bareProgramOf(client),
      // The same library settings as the configuration measured: the ratio is the harness's cost, not Nagle's or a heartbeat's.
      libraryOptions: adapterOf(client).bareOptions?.(client.profile) ?? {},
      queue: session.queue,
      messages,
      messageSizeBytes,
      warmupMessages: messages,
      timeoutMs: options.bareTimeoutMs ?? 60_000,
    });
    bareRuns.push({ published: bare.warmupMessages, received: await session.collectQueue(bare.warmupMessages) });
    const started = bare;
    const runBare = async (): Promise<number> => {
      const run = await started.run();
      bareRuns.push({ published: run.messages, received: await session.collectQueue(run.messages) });
      return run.msgs_per_sec;
    };
    const runHarness = async (): Promise<number> => {
      const round = await session.runRound();
      harnessRounds.push(round);
      return round.msgsPerSec;
    };
    for (let pair = 0; pair < pairCount; pair += 1) {
      const first = pair % 2 === 0 ? 'harness' : 'bare';
      let harnessMsgsPerSec: number;
      let bareMsgsPerSec: number;
      if (first === 'harness') {
        harnessMsgsPerSec = await runHarness();
        bareMsgsPerSec = await runBare();
      } else {
        bareMsgsPerSec = await runBare();
        harnessMsgsPerSec = await runHarness();
      }
      pairs.push({ first, harnessMsgsPerSec, bareMsgsPerSec });
    }
  } finally {
    await bare?.close();
    await session.close();
  }
  return {
    messages,
    messageSizeBytes,
    pairs,
    harnessRounds,
    bareRuns,
    errors: harnessRounds.reduce((sum, round) => sum + round.errors, 0),
  };
}
