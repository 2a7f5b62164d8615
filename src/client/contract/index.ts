/**
 * The adapter contract: every check, in the order they run, and one call that runs them all
 * against the broker at `amqpUrl` (with a fault proxy of its own) and cleans up after itself.
 */
import type { ClientSpec } from '../api';
import { clockCheck } from './clockCheck';
import { closeCheck, nothingLeftCheck } from './closeChecks';
import { infoCheck, signalsDescribedCheck } from './describeChecks';
import {
  consumerRecoveryCheck,
  ensureConnectedCheck,
  localPortCheck,
  onFaultCheck,
  publisherRecoveryCheck,
  recoverCheck,
} from './recoveryChecks';
import { ContractSession } from './session';
import { blockedCheck, channelClosedCheck, consumerCancelledCheck } from './signalChecks';
import { backlogCheck, connectCheck, manualAckCheck, publishConsumeCheck } from './trafficChecks';
import type { AlarmNode, CheckOutcome, ContractCheck } from './types';

export { ContractSession } from './session';
export {
  ClientFinding,
  ContractViolation,
  NotChecked,
  type AlarmNode,
  type CheckOutcome,
  type CheckStatus,
  type ContractCheck,
} from './types';

export const CONTRACT_CHECKS: readonly ContractCheck[] = Object.freeze([
  infoCheck,
  signalsDescribedCheck,
  connectCheck,
  clockCheck,
  publishConsumeCheck,
  manualAckCheck,
  backlogCheck,
  onFaultCheck,
  ensureConnectedCheck,
  localPortCheck,
  publisherRecoveryCheck,
  consumerRecoveryCheck,
  recoverCheck,
  closeCheck,
  nothingLeftCheck,
  channelClosedCheck,
  consumerCancelledCheck,
  blockedCheck,
]);

export interface ContractRun {
  readonly outcomes: readonly CheckOutcome[];
  /** Where the client connected through the contract's fault proxy (`127.0.0.1:<port>`). */
  readonly proxyListen: string;
}

/**
 * Runs every check against the client `spec` names, one after the other; `onOutcome` hears each
 * as it ends. Everything opened is released whatever happens.
 * @throws what opening the session threw (the adapter module, the broker, the proxy), before any check
 */
export async function runContract(
  spec: ClientSpec,
  amqpUrl: string,
  onOutcome: (outcome: CheckOutcome) => void = () => undefined,
  checks: readonly ContractCheck[] = CONTRACT_CHECKS,
  alarmNode?: AlarmNode,
): Promise<ContractRun> {
  const session = await ContractSession.open(spec, amqpUrl, alarmNode);
  const outcomes: CheckOutcome[] = [];
  try {
    for (const check of checks) {
      const outcome = await session.run(check);
      outcomes.push(outcome);
      onOutcome(outcome);
    }
  } finally {
    await session.close();
  }
  return { outcomes, proxyListen: session.proxy.listen };
}
