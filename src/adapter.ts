/**
 * The adapter API (`require('amqp-bench/adapter')`): what a module needs to put a client library
 * — or a reconnect wrapper of your own — under the harness. The module's default export (or its
 * export named `adapter`) is a ClientAdapter; `--clients ./bench/myClient.ts` runs every suite
 * with it, and `amqp-bench check-adapter ./bench/myClient.ts` checks it against the contract
 * first. Nothing of Jest in here: adapters are loaded in worker threads too.
 *
 * The rule every adapter keeps: map the library's own events and settings, never add recovery the
 * library lacks. What a library fails to do is a finding, not something to repair quietly.
 */
import type { ClientAdapter } from './client/api';

export type {
  AckSupport,
  ClientAdapter,
  ClientConnection,
  ClientFault,
  ClientInfo,
  ClientProfile,
  ClientSignal,
  ClientSpec,
  ConnectOptions,
  ConnectionState,
  ConsumeOptions,
  Consumer,
  Delivery,
  EnsureResult,
  NormalisedSettings,
  PublishOptions,
  Publisher,
  SignalKind,
  SignalSupport,
} from './client/api';
export { CLIENT_PROFILES, NORMALISED_SETTINGS, SIGNAL_KINDS, clientLabel } from './client/api';
export { FAULT_KINDS, classifyFault, faultMessage, type FaultKind } from './client/faults';
export { ClientFaultError, PublishNackedError } from './client/types';
export { ConnectionBase } from './client/connectionBase';
export { bounded } from './client/bounded';
export { TimeoutError } from './errors';
export { nowNs } from './measure/clock';

/** Types the adapter where it is written (`export default defineAdapter({...})`); returns it unchanged. */
export function defineAdapter<T extends ClientAdapter>(adapter: T): T {
  return adapter;
}
