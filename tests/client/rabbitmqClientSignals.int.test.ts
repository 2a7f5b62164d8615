/**
 * rabbitmq-client's typed signals through the adapter, provoked on the real broker: a channel the
 * broker closes (a publish to a deleted exchange), a consumer it cancels (its queue deleted), a
 * nack (a full queue that rejects publishes), and connection.blocked / unblocked slipped into the
 * stream by a relay (the shared broker is never alarmed). Each test asserts the signal and what
 * the library then does by itself; the adapter adds no recovery.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientFault, ClientSignal } from '../../src/client/api';
import { SIGNAL_KINDS } from '../../src/client/api';
import { RABBITMQ_CLIENT_SIGNALS } from '../../src/client/rabbitmqClient/signals';
import { clientInfo, connectClient } from '../../src/client/registry';
import { ClientFaultError, PublishNackedError } from '../../src/client/types';
import { getConfig } from '../../src/config';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { connectionBlockedFrame, connectionUnblockedFrame, startFrameRelay, type FrameRelay } from './support/frameRelay';
import { eventually, queueCountReaching } from './support/signals';

const directUrl = getConfig().amqpUrl;

/** `pending`, `resolved` or the rejection, as it stands now (the promise keeps running). */
function track(promise: Promise<unknown>): { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } {
  const outcome: { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { state: 'pending' };
  promise.then(
    () => (outcome.state = 'resolved'),
    (error: unknown) => Object.assign(outcome, { state: 'rejected', error }),
  );
  return outcome;
}

describe("rabbitmq-client adapter: the library's own signals (real broker)", () => {
  let admin: ChannelModel;
  let channel: Channel;
  let queue: string;
  const connections: ClientConnection[] = [];
  const relays: FrameRelay[] = [];
  /** Queues and exchanges a test made besides `queue`, deleted after it whatever happened. */
  const leftovers: { kind: 'queue' | 'exchange'; name: string }[] = [];

  const connect = async (url = directUrl) => {
    const connection = await connectClient(
      { name: 'rabbitmq-client', profile: 'normalised' },
      { urls: [url], connectionName: `test-rabbitmq-client-signals-${randomUUID()}`, startBoundMs: 10_000 },
    );
    connections.push(connection);
    const signals: ClientSignal[] = [];
    const faults: ClientFault[] = [];
    connection.onSignal((signal) => signals.push(signal));
    connection.onFault((fault) => faults.push(fault));
    return { connection, signals, faults };
  };
  const exchangeBoundToQueue = async (): Promise<string> => {
    const exchange = `test.rabbitmq-client.signals.${randomUUID()}`;
    leftovers.push({ kind: 'exchange', name: exchange });
    await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
    await channel.bindQueue(queue, exchange, 'key');
    return exchange;
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    channel = await admin.createChannel();
  });

  beforeEach(async () => {
    queue = `test.rabbitmq-client.signals.${randomUUID()}`;
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await Promise.all(relays.splice(0).map((relay) => relay.close()));
    await channel.deleteQueue(queue).catch(() => undefined);
    for (const { kind, name } of leftovers.splice(0)) {
      await (kind === 'queue' ? channel.deleteQueue(name) : channel.deleteExchange(name)).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await admin.close().catch(() => undefined);
  });

  it('says how the library gives each signal, none left unmapped', () => {
    const { signals } = clientInfo({ name: 'rabbitmq-client', profile: 'defaults' });
    expect(signals).toBe(RABBITMQ_CLIENT_SIGNALS);
    expect(Object.keys(signals).sort()).toEqual([...SIGNAL_KINDS].sort());
    for (const kind of SIGNAL_KINDS) expect(signals[kind]).not.toMatch(/not mapped/);
  });

  it('channel_closed: a confirmed publish to a deleted exchange rejects (404) and the next send opens a new channel', async () => {
    const { connection, signals, faults } = await connect();
    const exchange = await exchangeBoundToQueue();
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish(exchange, 'key', Buffer.from('routed'));
    await channel.deleteExchange(exchange);

    const rejected = publisher.publish(exchange, 'key', Buffer.from('no exchange'));
    await expect(rejected).rejects.toBeInstanceOf(ClientFaultError);
    await expect(rejected).rejects.toMatchObject({ kind: 'channel_closed', message: expect.stringMatching(/NOT_FOUND - no exchange/) });
    // The library's AMQPChannelError, in its words: '<method>: <reply text>'.
    expect(signals).toMatchObject([{ kind: 'channel_closed', message: expect.stringMatching(/^BasicPublish: NOT_FOUND - no exchange/) }]);
    // The connection is fine: no fault, still up.
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
    // What the library does next: its Publisher opens a new channel on the next send.
    await publisher.publish('', queue, Buffer.from('after'));
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
    expect(signals).toHaveLength(1);
  }, 30_000);

  it('finding: the 404 goes to the oldest unconfirmed send of the channel, not to the send that caused it', async () => {
    const { connection, signals } = await connect();
    // Persistent messages on a durable queue are confirmed only once written to disk: they are
    // still unconfirmed when the broker closes the channel for the bad send behind them.
    const durable = `test.rabbitmq-client.signals.durable.${randomUUID()}`;
    leftovers.push({ kind: 'queue', name: durable });
    await channel.assertQueue(durable, { durable: true, autoDelete: false });
    const publisher = await connection.publisher({ confirms: true });
    const rounds: { notFoundAt: number; badGot: 'NOT_FOUND' | 'CH_CLOSE' }[] = [];
    // A round whose good sends were all confirmed in time shows nothing: up to five rounds.
    for (let round = 0; round < 5 && !rounds.some((seen) => seen.badGot !== 'NOT_FOUND'); round += 1) {
      const good = Array.from({ length: 20 }, () => publisher.publish('', durable, Buffer.alloc(100), { persistent: true }));
      const bad = publisher.publish(`test.rabbitmq-client.signals.missing.${randomUUID()}`, 'key', Buffer.from('bad'));
      const outcomes = await Promise.allSettled([...good, bad]);
      const words = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'ok' : (outcome.reason as Error).message));
      const notFoundAt = words.findIndex((word) => /NOT_FOUND/.test(word));
      // Confirms come in order: the sends before the 404's are exactly the confirmed ones.
      expect(words.slice(0, notFoundAt).every((word) => word === 'ok')).toBe(true);
      // Every later send, the bad one included, gets the library's CH_CLOSE.
      expect(words.slice(notFoundAt + 1).every((word) => /channel is closed/.test(word))).toBe(true);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ kind: 'channel_closed' });
      }
      rounds.push({ notFoundAt, badGot: /NOT_FOUND/.test(words[20]!) ? 'NOT_FOUND' : 'CH_CLOSE' });
    }
    // Seen: the bad send (index 20) rejected with 'channel is closed', the 404 on a good one.
    expect(rounds.some((seen) => seen.badGot === 'CH_CLOSE' && seen.notFoundAt < 20)).toBe(true);
    // One signal per channel closed, whichever send carried the 404.
    expect(signals.map((signal) => signal.kind)).toEqual(rounds.map(() => 'channel_closed'));
  }, 30_000);

  it('channel_closed: a plain publish to a deleted exchange resolves; the library tells the close through its connection error event', async () => {
    const { connection, signals, faults } = await connect();
    const exchange = await exchangeBoundToQueue();
    const publisher = await connection.publisher({ confirms: false });
    await publisher.publish(exchange, 'key', Buffer.from('routed'));
    await channel.deleteExchange(exchange);
    // Written to the socket: the library resolves, the broker drops the message and closes the channel.
    await publisher.publish(exchange, 'key', Buffer.from('dropped'));
    await eventually(() => signals.length > 0, 5000, 'the channel_closed signal');
    expect(signals).toMatchObject([{ kind: 'channel_closed', message: expect.stringMatching(/NOT_FOUND - no exchange/) }]);
    await expect(publisher.flush(5000)).rejects.toMatchObject({ kind: 'channel_closed' });
    expect(faults).toEqual([]);
    await publisher.publish('', queue, Buffer.from('after'));
    await publisher.flush(5000);
    expect(await queueCountReaching(channel, queue, 2)).toBe(2);
  }, 30_000);

  it('consumer_cancelled: deleting the queue cancels the consumer; the library re-consumes once the queue exists again', async () => {
    const { connection, signals, faults } = await connect();
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    await channel.deleteQueue(queue);
    await eventually(() => signals.length > 0, 5000, 'the consumer_cancelled signal');
    expect(signals).toMatchObject([{ kind: 'consumer_cancelled', message: 'cancelled by server' }]);
    // The library sets the consumer up again with its backoff (normalised: 100 ms to 1 s); its
    // passive declare fails while the queue is missing, and it reports none of those failures.
    await sleep(1500);
    expect(signals).toHaveLength(1);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    await eventually(
      () => {
        channel.sendToQueue(queue, Buffer.from('after'));
        return received.includes('after');
      },
      10_000,
      'a delivery once the library re-consumed',
    );
  }, 30_000);

  it("channel_closed: the broker closes a consumer's channel (403: another connection consumes the queue exclusively)", async () => {
    const { connection, signals, faults } = await connect();
    await channel.consume(queue, () => undefined, { exclusive: true });
    await expect(connection.consume(queue, { ack: 'auto' }, () => undefined)).rejects.toThrow(/ACCESS_REFUSED/);
    // The Consumer's setup fails on its channel: the library emits it (the first failure of a series only).
    await eventually(() => signals.length > 0, 5000, 'the channel_closed signal');
    expect(signals).toMatchObject([
      {
        kind: 'channel_closed',
        message: expect.stringMatching(/^consumer setup failed; BasicConsume: ACCESS_REFUSED - .*exclusive use/),
      },
    ]);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
  }, 30_000);

  it('a nacked publish rejects with PublishNackedError and is no signal', async () => {
    const { connection, signals } = await connect();
    const full = `test.rabbitmq-client.signals.full.${randomUUID()}`;
    leftovers.push({ kind: 'queue', name: full });
    // The broker nacks publishes to a full queue that rejects them (x-overflow: reject-publish).
    await channel.assertQueue(full, { durable: false, arguments: { 'x-max-length': 1, 'x-overflow': 'reject-publish' } });
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', full, Buffer.from('fits'));
    await expect(publisher.publish('', full, Buffer.from('nacked'))).rejects.toBeInstanceOf(PublishNackedError);
    await publisher.publish('', queue, Buffer.from('the channel is still open'));
    expect(signals).toEqual([]);
  }, 30_000);

  it('blocked / unblocked: the library corks its socket (a plain send resolves unsent, a confirm waits) until unblocked', async () => {
    const relay = await startFrameRelay(directUrl);
    relays.push(relay);
    const { connection, signals, faults } = await connect(relay.url);
    const plain = await connection.publisher({ confirms: false });
    const confirmed = await connection.publisher({ confirms: true });
    await plain.publish('', queue, Buffer.from('warm'));
    await confirmed.publish('', queue, Buffer.from('warm'));
    await plain.flush(5000);
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);

    relay.inject(connectionBlockedFrame('low on memory (injected by the test)'));
    await eventually(() => signals.length > 0, 5000, 'the blocked signal');
    expect(signals).toMatchObject([{ kind: 'blocked', message: 'low on memory (injected by the test)' }]);
    await plain.publish('', queue, Buffer.from('corked'));
    const waiting = track(confirmed.publish('', queue, Buffer.from('confirm while blocked')));
    await sleep(500);
    // The plain send resolved, but nothing reached the broker; the confirm waits.
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
    expect(waiting.state).toBe('pending');

    relay.inject(connectionUnblockedFrame());
    await eventually(() => waiting.state !== 'pending', 5000, 'the confirm after unblocked');
    expect(waiting.state).toBe('resolved');
    expect(signals.map((signal) => signal.kind)).toEqual(['blocked', 'unblocked']);
    expect((await channel.checkQueue(queue)).messageCount).toBe(4);
    expect(faults).toEqual([]);
  }, 30_000);

  it('closes within its bound while blocked (the library alone waits for close-oks it cannot send)', async () => {
    const relay = await startFrameRelay(directUrl);
    relays.push(relay);
    const { connection, signals } = await connect(relay.url);
    await connection.consume(queue, { ack: 'manual', prefetch: 1 }, () => undefined);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('warm'));
    relay.inject(connectionBlockedFrame('disk alarm (injected by the test)'));
    await eventually(() => signals.length > 0, 5000, 'the blocked signal');
    const waiting = track(publisher.publish('', queue, Buffer.from('never confirmed')));
    const startedNs = nowNs();
    await connection.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(3000);
    expect(connection.state).toBe('closed');
    // The socket was destroyed: the pending confirm is rejected, not left hanging.
    await eventually(() => waiting.state !== 'pending', 2000, 'the pending confirm to settle');
    expect(waiting.state).toBe('rejected');
    await eventually(() => relay.openConnections === 0, 2000, 'the relay to see the connection go');
  }, 30_000);
});
