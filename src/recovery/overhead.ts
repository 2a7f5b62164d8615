/**
 * Recovery harness overhead: the reset_peer scenario through the harness (the client under test
 * behind the client interface, in a piscina pool) against the same scenario with the bare floor's
 * consumers (scripts/bare-recovery.js: plain amqplib in worker threads, nothing else), pair after
 * pair, the side that goes first alternating. Both sides get the same proxy, the same armed RST,
 * the same traffic and the same removal (scenario.ts drives both); each run is a fresh set of
 * threads, connections and queues, as every recovery scenario is.
 */
import type { ClientSpec } from '../client/api';
import { clientInfo } from '../client/registry';
import type { ProxyTarget } from '../faults';
import { elapsedMs } from '../measure/clock';
import { startBareConsumers } from './bareConsumers';
import { startHarnessConsumers } from './harnessConsumers';
import { computeRecoveryMetrics, type RecoveryMetrics } from './metrics';
import { runRecoveryScenario, type RecoveryOutcome } from './scenario';

/** How often scripts/bare-recovery.js retries its reconnection: the harness loop's first retry in amqplib's `defaults`. */
export const BARE_RECOVERY_RETRY_MS = 10;

/**
 * Why the bare floor is not this configuration's floor, or undefined when it is: the script is
 * plain amqplib reconnecting every 10 ms, which is what the harness's loop over amqplib does in
 * its `defaults` profile. Against any other configuration (another library, amqplib's own
 * recovery, a 100 ms first retry) the ratio would measure the difference of settings, not the
 * harness.
 */
export function bareFloorMismatch(client: ClientSpec): string | undefined {
  const info = clientInfo(client);
  if (info.library !== 'amqplib') return `the bare floor is plain amqplib; this client's library is ${info.library}`;
  if (info.recovery !== 'harness') return `the bare floor reconnects in its own loop; ${client.name} recovers with the library's own`;
  const firstRetryMs = info.settings.first_retry_ms;
  if (firstRetryMs !== BARE_RECOVERY_RETRY_MS)
    return `the bare floor retries every ${BARE_RECOVERY_RETRY_MS} ms; ${client.name} (${client.profile}) first retries after ${String(firstRetryMs)} ms`;
  return undefined;
}

export interface RecoveryOverheadOptions {
  readonly threads: number;
  readonly client: ClientSpec;
  readonly proxy: ProxyTarget;
  readonly proxiedUrl: string;
  readonly directUrl: string;
  /** Pairs of runs (harness + bare). @default 5 */
  readonly pairs?: number;
}

/** One side of a pair: its figures (computed alike for both), and how long its threads took to hear of the removal. */
export interface RecoverySide {
  readonly computed: RecoveryMetrics;
  /** The last thread's `recoveryStartedNs` after the removal completed, in ms (null when a thread never started recovering). */
  readonly removalSignalMaxMs: number | null;
  readonly failures: readonly string[];
}

export interface RecoveryOverheadPair {
  readonly first: 'harness' | 'bare';
  readonly harness: RecoverySide;
  readonly bare: RecoverySide;
}

export interface RecoveryOverheadOutcome {
  readonly threads: number;
  readonly pairs: readonly RecoveryOverheadPair[];
}

export async function measureRecoveryOverhead(options: RecoveryOverheadOptions): Promise<RecoveryOverheadOutcome> {
  const pairCount = options.pairs ?? 5;
  const run = async (side: 'harness' | 'bare'): Promise<RecoverySide> => {
    const outcome = await runRecoveryScenario({
      threads: options.threads,
      client: options.client,
      proxy: options.proxy,
      proxiedUrl: options.proxiedUrl,
      directUrl: options.directUrl,
      // As test_recovery_after_reset_peer: armed before the threads connect.
      fault: { kind: 'reset_peer' },
      consumers: side === 'harness' ? startHarnessConsumers : startBareConsumers,
    });
    return sideOf(outcome);
  };
  const pairs: RecoveryOverheadPair[] = [];
  for (let pair = 0; pair < pairCount; pair += 1) {
    const first = pair % 2 === 0 ? 'harness' : 'bare';
    if (first === 'harness') {
      const harness = await run('harness');
      pairs.push({ first, harness, bare: await run('bare') });
    } else {
      const bare = await run('bare');
      pairs.push({ first, harness: await run('harness'), bare });
    }
  }
  return { threads: options.threads, pairs };
}

function sideOf(outcome: RecoveryOutcome): RecoverySide {
  const removedNs = outcome.removal?.completedNs ?? null;
  const heard = outcome.threads.map((thread) =>
    thread.recoveryStartedNs === null || removedNs === null ? null : elapsedMs(removedNs, thread.recoveryStartedNs),
  );
  return {
    computed: computeRecoveryMetrics(outcome),
    removalSignalMaxMs: heard.some((ms) => ms === null) ? null : Math.max(...(heard as number[])),
    failures: outcome.threads.filter((thread) => thread.error).map((thread) => `thread ${thread.threadIndex}: ${thread.error}`),
  };
}
