/**
 * The typed signals an adapter says its library gives, provoked where that is cheap and harms no
 * one: a confirmed publish to an exchange that does not exist (the broker closes that channel:
 * 404, channel_closed) and deleting the queue of a consumer (basic.cancel, consumer_cancelled),
 * both on the contract's own connection and queue. blocked / unblocked need a resource alarm:
 * never set on a broker others use, so checked only on a node of the command's own
 * (`--alarm-node`), else not checked.
 */
import { nowNs } from '../../measure/clock';
import type { ClientConnection, ClientFault, ClientSignal, SignalKind } from '../api';
import { saysNone } from './describeChecks';
import { ContractViolation, NotChecked, formatDuration, needs, type CheckContext, type ContractCheck } from './types';

/** How long the adapter may take to tell a signal the broker sent. */
const SIGNAL_BOUND_MS = 5000;

/** Connects for a signal the adapter says its library gives, recording what the connection tells; skipped otherwise. */
async function connectFor(
  context: CheckContext,
  kind: SignalKind,
  via: 'direct' | 'alarm-node' = 'direct',
): Promise<{ connection: ClientConnection; signals: ClientSignal[]; faults: ClientFault[] }> {
  const words = context.info.signals[kind];
  if (saysNone(words)) throw new NotChecked(`not checked: the adapter says ${shorten(words)}`);
  needs(context, 'connect');
  context.step(via === 'direct' ? 'connecting straight to the broker (adapter.connect)' : 'connecting to the alarm node (adapter.connect)');
  const connection = await context.connect(via);
  const signals: ClientSignal[] = [];
  const faults: ClientFault[] = [];
  connection.onSignal((signal) => signals.push(signal));
  connection.onFault((fault) => faults.push(fault));
  return { connection, signals, faults };
}

/** Waits for the signal and says, in words, what came instead when it does not. */
async function expectSignal(
  context: CheckContext,
  kind: SignalKind,
  provokedBy: string,
  record: { signals: ClientSignal[]; faults: ClientFault[] },
  sinceNs: bigint,
): Promise<ClientSignal> {
  context.step(`waiting for the ${kind} signal`);
  await context.waitUntil(() => record.signals.some((each) => each.kind === kind) || record.faults.length > 0, SIGNAL_BOUND_MS);
  const signal = record.signals.find((each) => each.kind === kind);
  if (signal) {
    if (signal.detectedNs < sinceNs) throw new ContractViolation(`${provokedBy}: the ${kind} signal is timed before it was provoked`);
    return signal;
  }
  const claim = `though the adapter's signals say the library gives one (${shorten(context.info.signals[kind])})`;
  if (record.signals.length > 0) throw new ContractViolation(`${provokedBy} gave a "${record.signals[0]!.kind}" signal, not ${kind}`);
  if (record.faults.length > 0)
    throw new ContractViolation(
      `${provokedBy} gave no ${kind} signal but a connection fault ("${record.faults[0]!.kind}": ${record.faults[0]!.message}), ${claim}: tell it with the onSignal listeners`,
    );
  throw new ContractViolation(`${provokedBy} gave no ${kind} signal within ${formatDuration(SIGNAL_BOUND_MS)}, ${claim}`);
}

export const channelClosedCheck: ContractCheck = {
  name: 'onSignal: channel_closed',
  group: 'signals',
  boundMs: 20_000,
  async run(context) {
    const record = await connectFor(context, 'channel_closed');
    context.step('opening a publisher with confirms');
    const publisher = await record.connection.publisher({ confirms: true });
    const exchange = context.unique('amqp-bench.check-adapter.missing');
    context.step('publishing to an exchange that does not exist');
    const sentNs = nowNs();
    // Its outcome is the library's business (rejected, at once or with the close); only the signal is checked.
    const outcome = publisher.publish(exchange, 'nowhere', Buffer.from('to nowhere')).catch((error: unknown) => error);
    const signal = await expectSignal(
      context,
      'channel_closed',
      'a confirmed publish to an exchange that does not exist (the broker closes the channel: 404 NOT_FOUND)',
      record,
      sentNs,
    );
    await context.within(outcome, SIGNAL_BOUND_MS, 'the publish to an exchange that does not exist').catch(() => undefined);
    return `told: ${shorten(signal.message)}`;
  },
};

export const consumerCancelledCheck: ContractCheck = {
  name: 'onSignal: consumer_cancelled',
  group: 'signals',
  boundMs: 20_000,
  async run(context) {
    const record = await connectFor(context, 'consumer_cancelled');
    const queue = await context.broker.declareQueue('amqp-bench.check-adapter.cancel');
    context.step('consuming a queue of its own');
    await record.connection.consume(queue, { ack: 'auto' }, () => undefined);
    context.step('deleting the queue it consumes');
    const deletedNs = nowNs();
    await context.broker.deleteQueue(queue);
    const signal = await expectSignal(
      context,
      'consumer_cancelled',
      'deleting the queue of a consumer (the broker cancels it: basic.cancel)',
      record,
      deletedNs,
    );
    return `told: ${shorten(signal.message)}`;
  },
};

export const blockedCheck: ContractCheck = {
  name: 'onSignal: blocked, unblocked',
  group: 'signals',
  boundMs: 30_000,
  async run(context) {
    const node = context.alarmNode;
    if (node === undefined)
      throw new NotChecked(
        'not checked: it needs a resource alarm, which check-adapter never sets on a broker others may use; --alarm-node starts a RabbitMQ node of its own for it',
      );
    const record = await connectFor(context, 'blocked', 'alarm-node');
    context.step('opening a publisher');
    const publisher = await record.connection.publisher({ confirms: false });
    const queue = context.unique('amqp-bench.check-adapter.blocked');
    try {
      context.step('raising a memory alarm on the alarm node');
      const raisedNs = nowNs();
      await node.setMemoryAlarm(true);
      // The broker blocks a connection when it publishes during the alarm; this publish waits until unblocked.
      context.step('publishing while the alarm holds');
      const waiting = publisher.publish('', queue, Buffer.from('while blocked')).catch((error: unknown) => error);
      const blocked = await expectSignal(context, 'blocked', 'a publish during a resource alarm (connection.blocked)', record, raisedNs);
      context.step('clearing the memory alarm');
      const clearedNs = nowNs();
      await node.setMemoryAlarm(false);
      const unblocked = await expectSignal(context, 'unblocked', 'clearing the resource alarm (connection.unblocked)', record, clearedNs);
      await context.within(waiting, SIGNAL_BOUND_MS, 'the publish made while blocked, once unblocked').catch(() => undefined);
      return `told: ${shorten(blocked.message, 60)}; then ${shorten(unblocked.message, 60)}`;
    } finally {
      await node.setMemoryAlarm(false).catch(() => undefined);
    }
  },
};

function shorten(words: string, length = 100): string {
  const line = words.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}
