/**
 * A chaos thread for the stability suite (a worker entry: `startThreadPool` loads this module):
 * random drains, publishes, round trips and connection kills on its own client under test,
 * recovering after every fault; or, in `cycles` mode, back-to-back kill -> ensureConnection ->
 * round trip cycles, each one timed. Every error is counted and returned; nothing may escape
 * unhandled. A fault is told from a finding by its type (a typed client fault, or anything while
 * the connection is down), never by the words of an error message.
 */
import type { ClientConnection, ClientSpec, Publisher } from '../client/api';
import { bounded } from '../client/bounded';
import { classifyAnyClientFault, connectClient } from '../client/registry';
import { ClientFaultError, DrainTimeoutError } from '../client/types';
import { describeError } from '../errors';
import { encodeHistogram, createLatencyHistogram, recordLatencyNs } from '../measure/histogram';
import { nowNs, sleep } from '../measure/clock';
import { redactText } from '../redact';
import { trapUnhandled } from '../client/unhandledTrap';
import type { EncodedHistogram } from '../results/rawResult';
import { DrainingConsumer } from '../suite-kit/drainingConsumer';

export interface ChaosTask {
  readonly kind: 'chaos' | 'cycles';
  readonly workerIndex: number;
  readonly client: ClientSpec;
  readonly url: string;
  readonly connectionName: string;
  /** The thread's own queue (declared by the harness). */
  readonly queue: string;
  /** Operations (chaos) or kill/recover cycles (cycles). */
  readonly iterations: number;
  readonly seed: number;
  readonly recoverBoundMs: number;
}

export interface ChaosReport {
  readonly workerIndex: number;
  readonly operations: Record<string, number>;
  readonly faultsObserved: number;
  readonly recoveries: number;
  readonly unexpectedErrors: string[];
  readonly unhandled: readonly string[];
  /** kill -> recovered (cycles mode). */
  readonly cycleHistogram?: EncodedHistogram;
}

/** Small deterministic PRNG (mulberry32), so a failing chaos run can be replayed by seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export default async function chaosThread(task: ChaosTask): Promise<ChaosReport> {
  return new ChaosWorker(task).run();
}

class ChaosWorker {
  private readonly random: () => number;
  private readonly operations: Record<string, number> = { drain: 0, publish: 0, round_trip: 0, kill: 0 };
  private readonly unexpectedErrors: string[] = [];
  private readonly cycles = createLatencyHistogram();
  private client: DrainingConsumer | undefined;
  private publisher: Publisher | undefined;
  private faultsObserved = 0;
  private recoveries = 0;

  constructor(private readonly task: ChaosTask) {
    this.random = prng(task.seed);
  }

  async run(): Promise<ChaosReport> {
    const { task, unexpectedErrors } = this;
    const trap = trapUnhandled();
    try {
      // The proxy's resets begin while the workers start: a thread reset as it connects (slow on a
      // loaded machine) connects again, like any other recovery, instead of stopping.
      const chaos = await startWithinBound(task, () => {
        this.faultsObserved += 1;
      });
      this.client = chaos;
      for (let i = 0; i < task.iterations; i += 1) {
        try {
          if (task.kind === 'cycles') await this.cycle(chaos);
          else await this.randomOperation(chaos, i);
        } catch (error) {
          unexpectedErrors.push(redactText(describeError(error)));
          // Get back to a known state before going on; if that fails too the worker stops.
          await this.recover();
        }
      }
    } catch (error) {
      unexpectedErrors.push(`worker stopped: ${redactText(describeError(error))}`);
    } finally {
      this.client?.stopWaiting();
      await this.client?.connection.close().catch((error: unknown) => unexpectedErrors.push(`close: ${describeError(error)}`));
      // Let late socket events surface before the handlers go.
      await trap.release(50);
    }
    return {
      workerIndex: task.workerIndex,
      operations: this.operations,
      faultsObserved: this.faultsObserved,
      recoveries: this.recoveries,
      unexpectedErrors,
      unhandled: trap.trapped,
      ...(task.kind === 'cycles' ? { cycleHistogram: encodeHistogram(this.cycles) } : {}),
    };
  }

  /** One kill -> ensureConnection -> round trip cycle, timed. */
  private async cycle(chaos: DrainingConsumer): Promise<void> {
    const killedNs = nowNs();
    chaos.destroyConnection('kill/recover cycle');
    await chaos.drainEvents(1000).catch((error: unknown) => {
      if (error instanceof ClientFaultError) this.faultsObserved += 1;
    });
    await this.recover();
    recordLatencyNs(this.cycles, nowNs() - killedNs);
    this.operations.kill! += 1;
  }

  /** A drain, a publish, a round trip or a kill, at random. */
  private async randomOperation(chaos: DrainingConsumer, iteration: number): Promise<void> {
    const { task, operations } = this;
    const dice = this.random();
    if (dice < 0.4) {
      operations.drain! += 1;
      await this.guarded(() => chaos.drainEvents(5 + Math.floor(this.random() * 20)));
    } else if (dice < 0.7) {
      operations.publish! += 1;
      this.publisher ??= await chaos.connection.publisher({ confirms: false });
      const publishing = this.publisher;
      // Bounded: a client that queues publishes while disconnected resolves this only once it is back.
      await this.guarded(() =>
        bounded(
          publishing.publish('', task.queue, Buffer.from(`chaos-${task.workerIndex}-${iteration}`)),
          2000,
          'publish not handed over within 2000 ms',
        ),
      );
    } else if (dice < 0.88) {
      operations.round_trip! += 1;
      await this.guarded(() => chaos.roundTrip(2000));
    } else {
      operations.kill! += 1;
      chaos.destroyConnection('chaos kill');
      await this.guarded(() => chaos.drainEvents(1000));
    }
  }

  /** A connection fault, or its aftermath while the connection is down: expected chaos, not a finding. */
  private isExpectedFault(error: unknown): boolean {
    return error instanceof ClientFaultError || this.client?.connection.state !== 'up';
  }

  /** Reconnects and proves it; a fault during recovery (the proxy keeps resetting) means try again, within the bound. */
  private async recover(): Promise<void> {
    const deadline = Date.now() + this.task.recoverBoundMs;
    for (;;) {
      try {
        await this.client!.ensureConnection(Math.max(1, deadline - Date.now()));
        await this.client!.roundTrip(Math.min(5000, Math.max(1, deadline - Date.now())));
        this.recoveries += 1;
        return;
      } catch (error) {
        if (Date.now() >= deadline || !this.isExpectedFault(error)) throw error;
        this.faultsObserved += 1;
      }
    }
  }

  /** Runs one operation; a connection fault is expected chaos, anything else is a finding. */
  private async guarded(operation: () => Promise<unknown>): Promise<void> {
    try {
      await operation();
    } catch (error) {
      if (error instanceof DrainTimeoutError) return;
      if (this.isExpectedFault(error)) {
        this.faultsObserved += 1;
        await this.recover();
        return;
      }
      throw error;
    }
  }
}

/** Connects and starts consuming; a network fault on the way (classified, not an error of ours) means try again, within the recovery bound. */
async function startWithinBound(task: ChaosTask, onFault: () => void): Promise<DrainingConsumer> {
  const deadline = Date.now() + task.recoverBoundMs;
  for (;;) {
    let connection: ClientConnection | undefined;
    try {
      connection = await connectClient(task.client, { urls: [task.url], connectionName: task.connectionName });
      return await DrainingConsumer.start(connection, task.queue);
    } catch (error) {
      await connection?.close();
      const networkFault = error instanceof ClientFaultError || classifyAnyClientFault(error) !== 'error' || connection?.state === 'down';
      if (!networkFault || Date.now() >= deadline) throw error;
      onFault();
      await sleep(50);
    }
  }
}
