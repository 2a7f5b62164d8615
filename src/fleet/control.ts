/**
 * One participant's end of a fleet's control exchange (protocol.ts): the harness's own amqplib
 * connection to the broker (never through the fault proxy, so no scheduled fault cuts it), named
 * `bench-fleet-<run>-control-<who>` (a broker fault aimed at the clients' names never matches it),
 * its inbox declared and consumed. Messages wait in a local list until asked for.
 */
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';
import { BrokerError, describeError } from '../errors';
import {
  CONTROL_PROTOCOL_VERSION,
  CONTROL_QUEUE_EXPIRES_MS,
  controlExchange,
  inboxOf,
  parseControlMessage,
  routingKeyOf,
  type ControlEnvelope,
  type ControlMessage,
} from './protocol';

export type Participant = 'coordinator' | number;

export interface ControlEndpoint {
  send(to: 'coordinator' | 'agents' | number, message: ControlMessage): Promise<void>;
  /** The next message that `accept` takes (earlier ones it refuses stay for later), or undefined after `boundMs`. */
  next<T extends ControlEnvelope>(accept: (message: ControlEnvelope) => message is T, boundMs: number): Promise<T | undefined>;
  /** Messages that did not parse (another version's agent), in words. */
  readonly problems: readonly string[];
  /** Declares the inboxes of agents 0..count-1 (the coordinator: so that what it sends them waits for them). */
  declareAgentInboxes(count: number): Promise<void>;
  /** Deletes the exchange and every inbox of the run (the coordinator, at the end). */
  deleteAll(agentCount: number): Promise<void>;
  close(): Promise<void>;
}

const CONNECT_BOUND_MS = 10_000;

/** Opens `who`'s end of run `runId`'s control exchange on the broker at `url`. @throws BrokerError naming the broker's answer */
export async function openControl(url: string, runId: string, who: Participant): Promise<ControlEndpoint> {
  let model: ChannelModel;
  try {
    model = await amqp.connect(url, {
      timeout: CONNECT_BOUND_MS,
      noDelay: true,
      clientProperties: { connection_name: `bench-fleet-${runId}-control-${who === 'coordinator' ? 'coordinator' : `a${who}`}` },
    });
  } catch (error) {
    throw new BrokerError(`the fleet's control connection to the broker failed: ${describeError(error)}`);
  }
  model.on('error', () => undefined);
  try {
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    const exchange = controlExchange(runId);
    await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
    const declareInbox = async (owner: Participant) => {
      const queue = inboxOf(runId, owner);
      await channel.assertQueue(queue, { durable: false, autoDelete: false, arguments: { 'x-expires': CONTROL_QUEUE_EXPIRES_MS } });
      for (const key of owner === 'coordinator' ? ['coordinator'] : [routingKeyOf(owner), 'agents'])
        await channel.bindQueue(queue, exchange, key);
      return queue;
    };
    const inbox = await declareInbox(who);
    return endpoint({ model, channel, runId, exchange, inbox, declareInbox });
  } catch (error) {
    await closeBounded(model, socketOf(model));
    throw new BrokerError(`the fleet's control exchange could not be declared: ${describeError(error)}`);
  }
}

interface EndpointParts {
  readonly model: ChannelModel;
  readonly channel: Channel;
  readonly runId: string;
  readonly exchange: string;
  readonly inbox: string;
  readonly declareInbox: (owner: Participant) => Promise<string>;
}

async function endpoint(parts: EndpointParts): Promise<ControlEndpoint> {
  const { channel, exchange, runId } = parts;
  const received: ControlEnvelope[] = [];
  const problems: string[] = [];
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    for (const waiter of [...waiters]) waiter();
  };
  await channel.consume(
    parts.inbox,
    (delivery: ConsumeMessage | null) => {
      if (!delivery) return;
      const parsed = parseControlMessage(delivery.content.toString('utf8'));
      if (typeof parsed === 'string') problems.push(parsed);
      else received.push(parsed);
      wakeAll();
    },
    { noAck: true },
  );
  let closed = false;
  return {
    problems,
    async send(to, message) {
      const envelope = { ...message, version: CONTROL_PROTOCOL_VERSION, sent_unix_ms: Date.now() };
      channel.publish(exchange, routingKeyOf(to), Buffer.from(JSON.stringify(envelope)), { contentType: 'application/json' });
      // A round trip behind the publish: the broker has taken it (a result is sent just before exiting).
      await channel.checkExchange(exchange);
    },
    async next<T extends ControlEnvelope>(accept: (message: ControlEnvelope) => message is T, boundMs: number): Promise<T | undefined> {
      const deadline = Date.now() + boundMs;
      for (;;) {
        const index = received.findIndex(accept);
        if (index >= 0) return received.splice(index, 1)[0] as T;
        const left = deadline - Date.now();
        if (left <= 0 || closed) return undefined;
        await new Promise<void>((resolve) => {
          const waiter = () => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve();
          };
          const timer = setTimeout(waiter, left);
          waiters.add(waiter);
        });
      }
    },
    async declareAgentInboxes(count) {
      for (let index = 0; index < count; index += 1) await parts.declareInbox(index);
    },
    async deleteAll(agentCount) {
      for (let index = 0; index < agentCount; index += 1) await channel.deleteQueue(inboxOf(runId, index)).catch(() => undefined);
      await channel.deleteQueue(inboxOf(runId, 'coordinator')).catch(() => undefined);
      await channel.deleteExchange(exchange).catch(() => undefined);
    },
    async close() {
      if (closed) return;
      closed = true;
      wakeAll();
      await closeBounded(parts.model, socketOf(parts.model));
    },
  };
}
