/**
 * The consumer threads of a recovery scenario, behind one interface, so the same scenario (same
 * proxy, same fault, same traffic, same timing of removal) can drive the harness's threads
 * (harnessConsumers.ts: the client under test behind the client interface, in a piscina pool)
 * or the bare floor (bareConsumers.ts: plain amqplib in scripts/bare-recovery.js).
 *
 * Lifecycle: started (connecting) -> `waitReady` -> `warmUp` -> `markInjected` -> `waitDetected`
 * -> `markRemoved` -> `waitRecovered` -> `finish` (records) ; `close` always, in a finally (safe
 * twice, after `finish` or instead of it).
 */
import type { ClientSpec } from '../client/api';
import type { ReceivedKind } from '../client/faults';

export interface ThreadRecord {
  readonly threadIndex: number;
  readonly readyNs: bigint | null;
  readonly detectedNs: bigint | null;
  readonly detectionCause: ReceivedKind;
  readonly recoveryStartedNs: bigint | null;
  readonly recoveredNs: bigint | null;
  /** Local port of the connection the fault hit (matches the proxy's record of the client). */
  readonly faultedLocalPort: number;
  readonly reconnectAttempts: number;
  readonly deliveries: number;
  readonly falseAlarms: number;
  /** The client's error the thread stopped on (a finding). */
  readonly error?: string;
  /** The harness's own failure the thread stopped on (a bound of its own, a thread that crashed): no verdict on the client. */
  readonly harnessError?: string;
  /** Errors nobody handled inside the client (findings). */
  readonly unhandled?: readonly string[];
}

/** What every side is started with. */
export interface ConsumersStart {
  readonly threads: number;
  /** The client under test (the harness side; the bare side is plain amqplib whatever this says). */
  readonly client: ClientSpec;
  /** Broker URL through the fault proxy. */
  readonly url: string;
  /** Thread i consumes queues[i] (declared, bound and fed by the scenario). */
  readonly queues: readonly string[];
  /** Thread i's connection is named `<prefix>.<i>` (a broker fault finds the threads' connections by it). */
  readonly connectionNamePrefix?: string;
  readonly drainTimeoutMs: number;
  /** Bound on every phase wait inside a thread. */
  readonly phaseBoundMs: number;
}

export interface RecoveryConsumers {
  /** Every thread connected and consumes (bounded). @throws WorkerError naming the threads that failed, or the bound */
  waitReady(): Promise<void>;
  /** Lets the threads go and waits `warmupMs`, then (bounded) until every thread has had traffic. @throws WorkerError */
  warmUp(warmupMs: number): Promise<void>;
  /** The fault is about to act: from now on a thread's own deadline counts as detection. */
  markInjected(): void;
  /** True once every thread detected (or failed), false after the bound. */
  waitDetected(boundMs: number): Promise<boolean>;
  /** The fault is gone: every thread recovers now. */
  markRemoved(): void;
  /** True once every thread recovered, false when one failed or the bound passed. */
  waitRecovered(boundMs: number): Promise<boolean>;
  /** Stops the threads and returns what each recorded, in thread order. */
  finish(): Promise<ThreadRecord[]>;
  close(): Promise<void>;
}

export type StartConsumers = (start: ConsumersStart) => RecoveryConsumers;

export function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
