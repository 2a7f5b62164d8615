/**
 * A chaos thread for the stability suite: random drains, publishes, round trips and
 * connection kills on its own client, recovering after every fault; or, in `cycles` mode,
 * back-to-back kill -> ensureConnection -> round trip cycles, each one timed.
 * Every error is counted and returned; nothing may escape unhandled.
 */
import { createClient, ClientFaultError, DrainTimeoutError, type RecoveryMode } from '../client';
import { describeError } from '../errors';
import { encodeHistogram, createLatencyHistogram, recordLatencyNs } from '../measure/histogram';
import { nowNs } from '../measure/clock';
import { redactText } from '../redact';
import type { EncodedHistogram } from '../results/rawResult';

export interface ChaosTask {
  readonly kind: 'chaos' | 'cycles';
  readonly workerIndex: number;
  readonly mode: RecoveryMode;
  readonly url: string;
  readonly connectionName: string;
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
  readonly unhandled: string[];
  /** kill -> recovered (cycles mode). */
  readonly cycleHistogram?: EncodedHistogram;
}

/** A connection fault, or its aftermath on a channel: expected chaos, not a finding. */
function isExpectedFault(error: unknown): boolean {
  return (
    error instanceof ClientFaultError ||
    /closed|Channel ended|IllegalOperation|without a connection|did not come back|ECONNRESET/i.test(String(error))
  );
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

export default async function chaosWorker(task: ChaosTask): Promise<ChaosReport> {
  const unhandled: string[] = [];
  const onUnhandled = (error: unknown) => unhandled.push(redactText(describeError(error)));
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  const random = prng(task.seed);
  const client = createClient(task.mode, {
    url: task.url,
    connectionName: task.connectionName,
    backoff: { initialDelayMs: 5, maxDelayMs: 200 },
  });
  const operations: Record<string, number> = { drain: 0, publish: 0, round_trip: 0, kill: 0 };
  const unexpectedErrors: string[] = [];
  let faultsObserved = 0;
  let recoveries = 0;
  const cycles = createLatencyHistogram();

  /** Reconnects and proves it; a fault during recovery (the proxy keeps resetting) means try again, within the bound. */
  const recover = async () => {
    const deadline = Date.now() + task.recoverBoundMs;
    for (;;) {
      try {
        await client.ensureConnection(Math.max(1, deadline - Date.now()));
        await client.roundTrip(Math.min(5000, Math.max(1, deadline - Date.now())));
        recoveries += 1;
        return;
      } catch (error) {
        if (Date.now() >= deadline || !isExpectedFault(error)) throw error;
        faultsObserved += 1;
      }
    }
  };
  /** Runs one operation; a connection fault is expected chaos, anything else is a finding. */
  const guarded = async (operation: () => Promise<unknown>) => {
    try {
      await operation();
    } catch (error) {
      if (error instanceof DrainTimeoutError) return;
      if (isExpectedFault(error)) {
        faultsObserved += 1;
        await recover();
        return;
      }
      throw error;
    }
  };

  try {
    // The proxy's resets begin while the workers start: one that is reset as it connects (slow on a
    // loaded machine) recovers like any other, instead of stopping.
    await client.start().catch(async (error: unknown) => {
      if (!isExpectedFault(error)) throw error;
      faultsObserved += 1;
      await recover();
    });
    for (let i = 0; i < task.iterations; i += 1) {
      try {
        if (task.kind === 'cycles') {
          const killedNs = nowNs();
          client.destroyConnection('kill/recover cycle');
          await client.drainEvents(1000).catch((error: unknown) => {
            if (error instanceof ClientFaultError) faultsObserved += 1;
          });
          await recover();
          recordLatencyNs(cycles, nowNs() - killedNs);
          operations.kill! += 1;
          continue;
        }
        const dice = random();
        if (dice < 0.4) {
          operations.drain! += 1;
          await guarded(() => client.drainEvents(5 + Math.floor(random() * 20)));
        } else if (dice < 0.7) {
          operations.publish! += 1;
          await guarded(async () => {
            if (!client.queue) throw new Error('publish without a connection');
            client.publish('', client.queue, Buffer.from(`chaos-${task.workerIndex}-${i}`));
          });
        } else if (dice < 0.88) {
          operations.round_trip! += 1;
          await guarded(() => client.roundTrip(2000));
        } else {
          operations.kill! += 1;
          client.destroyConnection('chaos kill');
          await guarded(() => client.drainEvents(1000));
        }
      } catch (error) {
        unexpectedErrors.push(redactText(describeError(error)));
        // Get back to a known state before going on; if that fails too the worker stops.
        await recover();
      }
    }
  } catch (error) {
    unexpectedErrors.push(`worker stopped: ${redactText(describeError(error))}`);
  } finally {
    await client.close().catch((error: unknown) => unexpectedErrors.push(`close: ${describeError(error)}`));
    // Let late socket events surface before the handlers go.
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
  }
  return {
    workerIndex: task.workerIndex,
    operations,
    faultsObserved,
    recoveries,
    unexpectedErrors,
    unhandled,
    ...(task.kind === 'cycles' ? { cycleHistogram: encodeHistogram(cycles) } : {}),
  };
}
