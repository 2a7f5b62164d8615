/**
 * What a publish session holds while it is open (its board, pool, worker tasks and admin
 * channel), its rounds, and how it ends: `close()` stops the workers, settles their reports within
 * a bound, destroys the pool, deletes the queue and closes the admin connection, once however
 * often it is called.
 */
import path from 'node:path';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientSpec } from '../client/api';
import { describeError, WorkerError } from '../errors';
import { sleep } from '../measure/clock';
import { mergeHistograms } from '../measure/histogram';
import { isNonEmpty } from '../measure/statistics';
import { redactText } from '../redact';
import { settleWithin, type ThreadPool } from '../workers/pool';
import { borrowThreadPool } from '../workers/shelf';
import type { PublishWorkload } from './plan';
import { PublishBoard, PublishControl } from './publishBoard';
import type { PublishTask, PublishWorkerReport } from './publishThread';
import { combineWorkerRounds, rateOf } from './rates';
import type { RoundOutcome, SessionReport, SessionState } from './session';

/** Bound on the extra warm-up rounds of threads new to a mode and client (tiny rounds would otherwise need very many). */
const MAX_FIRST_USE_WARMUP_ROUNDS = 30;

export interface PublishWorkersSpec {
  readonly url: string;
  readonly client: ClientSpec;
  readonly firstUseWarmupPublishesPerThread: number;
}

export class PublishSessionRuntime {
  readonly board: PublishBoard;
  private readonly adminErrors: string[] = [];
  private admin: ChannelModel | undefined;
  private channel: Channel | undefined;
  state: SessionState = 'open';
  warmupRounds: number;
  private pool: ThreadPool | undefined;
  private tasks: Promise<PublishWorkerReport>[] = [];
  private closing: Promise<SessionReport> | undefined;
  private round = 0;

  constructor(
    readonly workload: PublishWorkload,
    readonly queue: string,
    private readonly arrivalBoundMs: number,
  ) {
    this.board = new PublishBoard(workload.workerThreads);
    this.warmupRounds = workload.warmupRounds;
  }

  /** Opens the harness's admin connection and declares the session's queue. */
  async openQueue(url: string, connectTimeoutMs: number, maxLength: number): Promise<void> {
    const admin = await amqp.connect(url, { noDelay: true, timeout: connectTimeoutMs });
    this.admin = admin;
    admin.on('error', (error: Error) => this.adminErrors.push(`admin connection: ${error.message}`));
    const channel = await admin.createChannel();
    this.channel = channel;
    channel.on('error', (error: Error) => this.adminErrors.push(`admin channel: ${error.message}`));
    // x-expires: a queue left behind by a killed run disappears on its own after 10 idle minutes.
    await channel.assertQueue(this.queue, { durable: false, arguments: { 'x-max-length': maxLength, 'x-expires': 600_000 } });
  }

  /** Borrows a pool and starts one publish task per worker thread (they connect and wait at the barrier). */
  startWorkers(spec: PublishWorkersSpec): void {
    const { workload } = this;
    const pool = borrowThreadPool(path.join(__dirname, 'publishThread.ts'), workload.workerThreads);
    this.pool = pool;
    // Per client too: a pool reused across clients (bench:clients) has not warmed the next one's library.
    const warmupTag = `publish-${workload.mode}-${spec.client.module ?? spec.client.name}:${spec.client.profile}`;
    if (!pool.warmedUp.has(warmupTag)) {
      const publishesPerThreadRound = workload.messagesPerRound / workload.workerThreads;
      const firstUseRounds = Math.ceil(spec.firstUseWarmupPublishesPerThread / publishesPerThreadRound);
      this.warmupRounds = Math.max(this.warmupRounds, Math.min(MAX_FIRST_USE_WARMUP_ROUNDS, firstUseRounds));
      pool.warmedUp.add(warmupTag);
    }
    this.tasks = workload.assignments.map((assignment) =>
      pool.run<PublishTask, PublishWorkerReport>({
        worker: assignment.worker,
        workers: workload.workerThreads,
        buffer: this.board.buffer,
        url: spec.url,
        queue: this.queue,
        publishers: assignment.publishers,
        firstPublisher: assignment.firstPublisher,
        messagesPerThread: workload.messagesPerThread,
        messageSizeBytes: workload.messageSizeBytes,
        mode: workload.mode,
        warmupRounds: this.warmupRounds,
        sessionWarmupMessagesPerThread: workload.sessionWarmupMessagesPerThread,
        client: spec.client,
        phaseBoundMs: workload.roundBoundMs,
        publishBoundMs: workload.publishBoundMs,
      }),
    );
  }

  /** @throws WorkerError when a worker failed or not every worker was ready within `startBoundMs` (the session is closed first). */
  async waitUntilReady(startBoundMs: number): Promise<void> {
    const { board, workload } = this;
    const ready = await board.waitFor(PublishControl.READY, workload.workerThreads, startBoundMs);
    if (ready && board.flag(PublishControl.FAILED) === 0) return;
    throw await this.failure(
      ready
        ? 'publish workers failed to start'
        : `only ${board.flag(PublishControl.READY)} of ${workload.workerThreads} publish workers were ready within ${startBoundMs} ms`,
    );
  }

  async runRound(): Promise<RoundOutcome> {
    const { board, workload } = this;
    if (this.state !== 'open') throw new WorkerError('the publish session is closed; open a new one');
    this.round += 1;
    const round = this.round;
    board.raise(PublishControl.GO, round);
    const cut = !(await this.waitForRound(round, workload.roundBoundMs));
    if (cut) await this.cutRound(round);
    const parts = Array.from({ length: workload.workerThreads }, (_, worker) => board.readRound(worker));
    if (!isNonEmpty(parts)) throw new WorkerError('a publish session needs at least one worker thread');
    const combined = combineWorkerRounds(parts);
    // A round cut at its bound, or whose publishers stopped on publishes never settled: only the settled ones are sure to be there.
    const expected = this.messagesInRound(round);
    const received = await this.collectQueue(cut || combined.unsettled > 0 ? combined.published : expected);
    const rate = rateOf(combined.published, workload.messageSizeBytes, combined.durationMs);
    return { ...combined, round, warmup: round <= this.warmupRounds, cut, expected, received, ...rate };
  }

  /** Messages of every publisher in round `round`: fewer in the session's own warm-up round (the last warm-up one). */
  messagesInRound(round: number): number {
    const { workload } = this;
    return round === this.warmupRounds ? workload.threads * workload.sessionWarmupMessagesPerThread : workload.messagesPerRound;
  }

  /**
   * True when every worker finished round `round` within `boundMs`; false when the bound passed
   * with none of them failed (the client is slow: the caller cuts the round).
   * @throws WorkerError when a worker failed (the session is closed first).
   */
  private async waitForRound(round: number, boundMs: number): Promise<boolean> {
    const { board, workload } = this;
    if (await board.waitFor(PublishControl.DONE, workload.workerThreads * round, boundMs, PublishControl.FAILED)) return true;
    const failed = board.flag(PublishControl.FAILED);
    if (failed > 0) throw await this.failure(`${failed} publish worker(s) failed in round ${round}`);
    return false;
  }

  /**
   * Cuts a round that did not finish within the round bound: its publishers make no further
   * publish, and each settles the one in flight (within the publish bound) and counts the round
   * done with what it published. A slow client's round so ends as a figure; workers that do not
   * come back within another round bound are the harness's failure.
   * @throws WorkerError when the workers do not finish the cut round within another round bound.
   */
  private async cutRound(round: number): Promise<void> {
    const { board, workload } = this;
    board.raise(PublishControl.CUT, round);
    if (await this.waitForRound(round, workload.roundBoundMs)) return;
    throw await this.failure(
      `round ${round} did not complete within ${workload.roundBoundMs} ms, nor within ${workload.roundBoundMs} ms of being cut there`,
    );
  }

  /** Waits until the queue holds `expected` messages (or the bound passes), purges it, returns the purged count. */
  async collectQueue(expected: number): Promise<number> {
    const { channel, queue } = this;
    if (!channel) throw new WorkerError('the session has no admin channel');
    const deadline = Date.now() + this.arrivalBoundMs;
    for (;;) {
      const { messageCount } = await channel.checkQueue(queue);
      if (messageCount >= expected || Date.now() >= deadline) break;
      // A short poll: the round's figures are taken already (the workers' own times), so the
      // poll only decides how soon the count is read once the queue has caught up (a 10 ms poll
      // lost up to 10 ms after each plain round, warm-up rounds included). Same count, same bound.
      await sleep(2);
    }
    const { messageCount } = await channel.purgeQueue(queue);
    return messageCount;
  }

  close(): Promise<SessionReport> {
    this.closing ??= this.stopEverything();
    return this.closing;
  }

  /** Stops the session and builds an error naming what each failed worker said. */
  async failure(what: string): Promise<WorkerError> {
    const report = await this.close();
    const reasons = report.workers.filter((worker) => worker.fatal).map((worker) => `worker ${worker.worker}: ${worker.fatal}`);
    return new WorkerError(`${what}${reasons.length > 0 ? `; ${reasons.join('; ')}` : ''}`);
  }

  private async stopEverything(): Promise<SessionReport> {
    this.state = 'closed';
    this.board.raise(PublishControl.STOP);
    // Idle workers wait on GO with STOP as their abort word, which they used to read only at
    // the end of a 50 ms slice: woken now, they stop at once. After the rounds, so no round's
    // figures can change; a worker still in a round does not wait on GO and is not affected.
    this.board.wake(PublishControl.GO);
    try {
      const workers = await this.settleReports(15_000);
      const histogram = mergeHistograms(workers.filter((report) => report.histogram.count > 0).map((report) => report.histogram));
      const errorSamples = [...new Set([...workers.flatMap((report) => report.errorSamples), ...this.adminErrors])].slice(0, 10);
      return { workers, histogram, errorSamples };
    } finally {
      await this.pool?.destroy();
      await this.channel?.deleteQueue(this.queue).catch(() => undefined);
      await this.admin?.close().catch(() => undefined);
    }
  }

  private async settleReports(boundMs: number): Promise<PublishWorkerReport[]> {
    const settled = await settleWithin(this.tasks, boundMs);
    return settled.map((result, worker): PublishWorkerReport => {
      if (result.status === 'fulfilled') return result.value;
      const fatal =
        result.status === 'rejected'
          ? `worker task rejected: ${redactText(describeError(result.reason))}`
          : `worker did not finish within ${boundMs} ms of the stop signal`;
      return { worker, rounds: [], histogram: { encoded: '', unit: 'us', count: 0 }, errorSamples: [], unsettled: [], fatal };
    });
  }
}
