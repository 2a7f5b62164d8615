/**
 * Recovery harness overhead: the reset_peer scenario through the harness (the client under test
 * behind the client interface, in a piscina pool) against the same scenario with the bare floor's
 * consumers (scripts/bare-recovery.js: plain amqplib in worker threads, nothing else; for a client
 * in another language its bare recovery program, one process per thread as the harness starts one
 * client program per connection: bareProgramConsumers.ts), pair after pair, the side that goes
 * first alternating. Both sides get the same proxy, the same armed RST,
 * the same traffic and the same removal (scenario.ts drives both); each run is a fresh set of
 * threads, connections and queues on both sides.
 *
 * What is compared is each connection's own delay (ConnectionDelays), not the run's propagation:
 * the proxy sends its RSTs over a spread that depends on how the cores were shared at that moment
 * (6.5 against 10 ms at 10 threads, 123 against 226 ms at 100 in one run), and propagation, timed
 * from the first RST, carries that spread.
 */
import path from 'node:path';
import type { ClientSpec } from '../client/api';
import { clientInfo } from '../client/registry';
import type { ProxyTarget } from '../faults';
import { elapsedMs } from '../measure/clock';
import { startBareConsumers } from './bareConsumers';
import { bareRecoveryProgramOf, startBareProgramConsumers } from './bareProgramConsumers';
import type { StartConsumers } from './consumers';
import { startFreshHarnessConsumers } from './harnessConsumers';
import { computeRecoveryMetrics, type RecoveryMetrics } from './metrics';
import { runMoments } from './runMoments';
import { runRecoveryScenario, type RecoveryOutcome } from './scenario';

/** How often scripts/bare-recovery.js retries its reconnection: the harness loop's first retry in amqplib's `defaults`. */
export const BARE_RECOVERY_RETRY_MS = 10;

/**
 * Why the bare floor is not this configuration's floor, or undefined when it is. For a Node.js
 * library the floor is plain amqplib reconnecting every 10 ms, which is what the harness's loop
 * over amqplib does in its `defaults` profile: against any other configuration (another library,
 * amqplib's own recovery, a 100 ms first retry) the ratio would measure the difference of
 * settings, not the harness. A client in another language with a bare recovery program is its
 * own floor: the program takes the profile's settings and the harness loop's backoff.
 */
export function bareFloorMismatch(client: ClientSpec): string | undefined {
  const info = clientInfo(client);
  if (bareRecoveryProgramOf(client) !== undefined) return undefined;
  if (info.library !== 'amqplib') return `the bare floor is plain amqplib; this client's library is ${info.library}`;
  if (info.recovery !== 'harness') return `the bare floor reconnects in its own loop; ${client.name} recovers with the library's own`;
  const firstRetryMs = info.settings.first_retry_ms;
  if (firstRetryMs !== BARE_RECOVERY_RETRY_MS)
    return `the bare floor retries every ${BARE_RECOVERY_RETRY_MS} ms; ${client.name} (${client.profile}) first retries after ${String(firstRetryMs)} ms`;
  return undefined;
}

/** The bare floor's consumers for `client` and what they are in words: its bare recovery program, or plain amqplib (scripts/bare-recovery.js). */
export function bareFloorOf(client: ClientSpec): { readonly consumers: StartConsumers; readonly words: string } {
  const program = bareRecoveryProgramOf(client);
  return program
    ? {
        consumers: startBareProgramConsumers(program, client),
        words: `${program.map((word) => path.basename(word)).join(' ')}, one process per thread (as the harness's one client program per connection), each ${client.name} alone with the client program's ${client.profile} settings and the harness loop's backoff, nothing else in its path`,
      }
    : {
        consumers: startBareConsumers,
        words: 'scripts/bare-recovery.js, plain amqplib consumers in worker threads of their own process, nothing else in their path',
      };
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

/**
 * One connection's own delays, in ms: from the fault on its own connection (the proxy's timeline,
 * by its client port) to its detection, and from the moment its thread heard of the removal to
 * its recovery. Each is timed from that connection's own moment, so neither carries the other
 * connections' fault spread nor the way each side tells its threads of the removal.
 */
export interface ConnectionDelays {
  /** Per connection the timeline named (null: it was not named, or detected nothing). */
  readonly detectionMs: readonly (number | null)[];
  /** Per connection that recovered (null: it never started recovering or never recovered). */
  readonly recoveryMs: readonly (number | null)[];
  /** Per connection: the end of the removal to its thread starting to recover (null: it never started). */
  readonly removalSignalMs: readonly (number | null)[];
}

/** One side of a pair: its figures (computed alike for both), and each connection's own delays. */
export interface RecoverySide {
  readonly computed: RecoveryMetrics;
  readonly connections: ConnectionDelays;
  readonly failures: readonly string[];
}

export interface RecoveryOverheadPair {
  readonly first: 'harness' | 'bare';
  readonly harness: RecoverySide;
  readonly bare: RecoverySide;
}

export interface RecoveryOverheadOutcome {
  readonly threads: number;
  /** What the bare side ran, in words for the result's notes. */
  readonly bareFloor: string;
  readonly pairs: readonly RecoveryOverheadPair[];
}

export async function measureRecoveryOverhead(options: RecoveryOverheadOptions): Promise<RecoveryOverheadOutcome> {
  const pairCount = options.pairs ?? 5;
  const bare = bareFloorOf(options.client);
  const run = async (side: 'harness' | 'bare'): Promise<RecoverySide> => {
    const outcome = await runRecoveryScenario({
      threads: options.threads,
      client: options.client,
      proxy: options.proxy,
      proxiedUrl: options.proxiedUrl,
      directUrl: options.directUrl,
      // As test_recovery_after_reset_peer: armed before the threads connect.
      fault: { kind: 'reset_peer' },
      // Fresh threads on both sides, every run (the bare floor is a fresh process each time).
      consumers: side === 'harness' ? startFreshHarnessConsumers : bare.consumers,
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
  return { threads: options.threads, bareFloor: bare.words, pairs };
}

export function sideOf(outcome: RecoveryOutcome): RecoverySide {
  return {
    computed: computeRecoveryMetrics(outcome),
    connections: connectionDelays(outcome),
    failures: outcome.threads.filter((thread) => thread.error).map((thread) => `thread ${thread.threadIndex}: ${thread.error}`),
  };
}

/** Each connection's own delays (pure): see ConnectionDelays. */
export function connectionDelays(
  outcome: Pick<RecoveryOutcome, 'threads' | 'faultEvents' | 'fault' | 'injection' | 'removal'>,
): ConnectionDelays {
  const moments = runMoments(outcome);
  const between = (fromNs: bigint | null, toNs: bigint | null): number | null =>
    fromNs === null || toNs === null || toNs < fromNs ? null : elapsedMs(fromNs, toNs);
  return {
    // Only connections the timeline named: one timed from another connection's RST is not its own delay.
    detectionMs: outcome.threads.map((_, index) => (moments.ownFaultNs[index] === null ? null : (moments.detectionMs[index] ?? null))),
    recoveryMs: outcome.threads.map((thread) => between(thread.recoveryStartedNs, thread.recoveredNs)),
    removalSignalMs: outcome.threads.map((thread) => between(moments.removalNs, thread.recoveryStartedNs)),
  };
}
