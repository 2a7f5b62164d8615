/**
 * The contract every client adapter keeps, as data: named checks, each bounded in time, each
 * ending passed, failed (with what the adapter does wrong, in plain words), not checked (with
 * why), or a finding of the client (what the client under the adapter failed to do, with the
 * evidence, as every suite reports it: a confirm that never settled though the broker took the
 * message). `bench check-adapter` prints them; tests/client/contract.int.test.ts runs them for
 * every built-in adapter.
 */
import type { ClientAdapter, ClientConnection, ClientInfo, ClientSpec } from '../api';
import type { HarnessBroker } from './harnessBroker';

export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'finding';

export interface CheckOutcome {
  readonly name: string;
  readonly status: CheckStatus;
  /** What was seen (passed), what the adapter does wrong (failed), why it was not checked (skipped), or what the client failed to do (finding). */
  readonly words: string;
  readonly elapsedMs: number;
}

/** Thrown by a check: what the adapter does wrong, in words a reader can act on. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

/**
 * Thrown by a check that saw the client fail at what it asks in a way the suites report as a
 * finding of the client (a confirm that never settled within its bound, though the broker took the
 * message): with the evidence, and no breach of the contract by itself.
 */
export class ClientFinding extends Error {
  override readonly name = 'ClientFinding';
}

/** Thrown by a check that does not apply here (the adapter says its library has no such thing, or it needs what check-adapter never does). */
export class NotChecked extends Error {
  override readonly name = 'NotChecked';
}

/** The fault proxy in front of the broker, as the checks use it. */
export interface FaultSwitch {
  /** Makes the proxy reset (RST) every connection as soon as data flows towards the client; resolves with when it was armed. */
  resetOnNextData(): Promise<bigint>;
  /** Removes every toxic: new connections go through again. */
  heal(): Promise<void>;
  /** Client-side ports of the connections open through the proxy now. */
  openClientPorts(): Promise<number[]>;
}

/**
 * A RabbitMQ node of the command's own (`check-adapter --alarm-node`), the one broker a resource
 * alarm may be set on: every client of a node is blocked by it.
 */
export interface AlarmNode {
  /** Its AMQP URL. */
  readonly url: string;
  /** Raises (watermark 0) or clears the node's memory alarm. */
  setMemoryAlarm(raised: boolean): Promise<void>;
}

/** What a check gets: the adapter, the harness's side of the broker, and bounded waits tied to the check. */
export interface CheckContext {
  readonly spec: ClientSpec;
  readonly adapter: ClientAdapter;
  /** What results would record of the client (ClientInfo, read without connecting). */
  readonly info: ClientInfo;
  /** One object per group of checks: state a group's checks share lives in a WeakMap keyed by it. */
  readonly scope: object;
  /** The broker, straight (the configured AMQP URL). */
  readonly brokerUrl: string;
  readonly broker: HarnessBroker;
  readonly faults: FaultSwitch;
  /** The node of the command's own for the alarm check; undefined unless asked for. */
  readonly alarmNode: AlarmNode | undefined;
  /** Connects the client under test, straight to the broker, through the fault proxy or to the alarm node; closed when the group ends. */
  connect(via: 'direct' | 'proxy' | 'alarm-node', connectionName?: string): Promise<ClientConnection>;
  /** Polls `predicate` until it holds (true) or `boundMs` passes (false). */
  waitUntil(predicate: () => boolean, boundMs: number): Promise<boolean>;
  /** `promise`'s value, or a ContractViolation saying `what` did not end within `boundMs`. */
  within<T>(promise: Promise<T>, boundMs: number, what: string): Promise<T>;
  sleep(ms: number): Promise<void>;
  /** What the check is doing now: said when its bound passes. */
  step(what: string): void;
  /** A name unique to this run (`prefix`, a random suffix), for connections, queues and exchanges. */
  unique(prefix: string): string;
  /** The outcome of a check that ran before, by name. */
  earlier(name: string): CheckOutcome | undefined;
}

export interface ContractCheck {
  /** How the output names it: the member of the adapter checked (`onFault`, `close()`), or what is checked. */
  readonly name: string;
  /** Checks of one group run one after the other and share connections and queues, released when the group ends. */
  readonly group: string;
  /** The whole check, cleanup excluded. */
  readonly boundMs: number;
  /** Resolves with the words of a pass; throws ContractViolation (failed) or NotChecked (skipped). */
  run(context: CheckContext): Promise<string>;
}

/** Stops a check that builds on `name` when that one failed: one defect, one failure. */
export function needs(context: CheckContext, name: string): void {
  if (context.earlier(name)?.status === 'failed') throw new NotChecked(`not checked: it needs ${name}, which failed`);
}

/** `10 s`, `500 ms`, `1.5 s`. */
export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${Math.round(ms)} ms`;
}
