/**
 * The client layer's small shared pieces: the typed errors a client (and the harness on top of
 * it) throws, and the harness loop's backoff settings. The interface itself is ./api.ts.
 */
import { BenchError } from '../errors';
import type { FaultKind } from './faults';

export { FAULT_KINDS, FAULT_KIND_LABELS, classifyFault, type FaultKind } from './faults';
export type { EnsureResult } from './api';

export interface BackoffOptions {
  /** First retry delay. @default 10 */
  readonly initialDelayMs: number;
  /** Cap of the delay. @default 500 */
  readonly maxDelayMs: number;
  /** Growth per attempt. @default 2 */
  readonly factor: number;
  /** Random spread as a fraction of the delay (0..1), against thundering herds. @default 0.2 */
  readonly jitter: number;
}

/** The harness loop's own backoff (the `amqplib` client's `defaults` profile). */
export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 10, maxDelayMs: 500, factor: 2, jitter: 0.2 };

/** What `drainEvents` handed to the application. */
export interface DrainResult {
  readonly deliveries: number;
  /** Bodies of the deliveries, when asked for (`collectBodies`). */
  readonly bodies?: readonly Buffer[];
}

/** The connection failed; `detectedNs` is when the client first learned of it, `kind` what it learned. */
export class ClientFaultError extends BenchError {
  readonly detectedNs: bigint;
  readonly kind: FaultKind;

  constructor(message: string, detectedNs: bigint, kind: FaultKind, options?: { cause?: unknown }) {
    super('CLIENT_FAULT', message, options);
    this.detectedNs = detectedNs;
    this.kind = kind;
  }
}

/** The broker refused a publish it was asked to confirm (basic.nack): the library told us so. */
export class PublishNackedError extends BenchError {
  readonly detectedNs: bigint;

  constructor(message: string, detectedNs: bigint, options?: { cause?: unknown }) {
    super('CLIENT_FAULT', message, options);
    this.detectedNs = detectedNs;
  }
}

/** Nothing arrived within the drain deadline. */
export class DrainTimeoutError extends BenchError {
  readonly detectedNs: bigint;

  constructor(timeoutMs: number, detectedNs: bigint) {
    super('TIMEOUT', `no delivery within ${timeoutMs} ms`);
    this.detectedNs = detectedNs;
  }
}
