/**
 * @cloudamqp/amqp-client's typed signals through the adapter, provoked on the real broker: a
 * channel the broker closes (a confirmed publish to a deleted exchange), a subscription it
 * cancels (its queue deleted), a nack (a full queue that rejects publishes), and
 * connection.blocked / unblocked slipped into the stream by a relay (the shared broker is never
 * alarmed). Each test asserts the signal and what the library then does by itself; the adapter
 * adds no recovery.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientFault, ClientSignal } from '../../src/client/api';
import { SIGNAL_KINDS } from '../../src/client/api';
import { CloudamqpConsumer, type HandleOwner } from '../../src/client/cloudamqp/handles';
import { AMQPSession } from '../../src/client/cloudamqp/amqpClient';
import { CLOUDAMQP_SIGNALS } from '../../src/client/cloudamqp/signals';
import { clientInfo, connectClient } from '../../src/client/registry';
import { ClientFaultError, PublishNackedError } from '../../src/client/types';
import { getConfig } from '../../src/config';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { connectionBlockedFrame, connectionUnblockedFrame, startFrameRelay, type FrameRelay } from './support/frameRelay';
import { eventually } from './support/signals';

const directUrl = getConfig().amqpUrl;

describe("cloudamqp adapter: the library's own signals (real broker)", () => {
  let admin: ChannelModel;
  let channel: Channel;
  let queue: string;
  const connections: ClientConnection[] = [];
  const relays: FrameRelay[] = [];
  /** Queues and exchanges a test made besides `queue`, deleted after it whatever happened. */
  const leftovers: { kind: 'queue' | 'exchange'; name: string }[] = [];

  const connect = async (url = directUrl) => {
    const connection = await connectClient(
      { name: 'cloudamqp', profile: 'normalised' },
      { urls: [url], connectionName: `test-cloudamqp-signals-${randomUUID()}`, startBoundMs: 10_000 },
    );
    connections.push(connection);
    const signals: ClientSignal[] = [];
    const faults: ClientFault[] = [];
    connection.onSignal((signal) => signals.push(signal));
    connection.onFault((fault) => faults.push(fault));
    return { connection, signals, faults };
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    channel = await admin.createChannel();
  });

  beforeEach(async () => {
    queue = `test.cloudamqp.signals.${randomUUID()}`;
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
    const { signals } = clientInfo({ name: 'cloudamqp', profile: 'defaults' });
    expect(signals).toBe(CLOUDAMQP_SIGNALS);
    expect(Object.keys(signals).sort()).toEqual([...SIGNAL_KINDS].sort());
    for (const kind of SIGNAL_KINDS) expect(signals[kind]).not.toMatch(/not mapped/);
  });

  it('channel_closed: a confirmed publish to a deleted exchange rejects with every publish pending on the channel; the next one reopens it', async () => {
    const { connection, signals, faults } = await connect();
    const exchange = `test.cloudamqp.signals.${randomUUID()}`;
    leftovers.push({ kind: 'exchange', name: exchange });
    await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
    await channel.bindQueue(queue, exchange, 'key');
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish(exchange, 'key', Buffer.from('routed'));
    await channel.deleteExchange(exchange);

    // The bad publish, then three good ones on the same (session-shared) confirm channel before the close comes back.
    const outcomes = await Promise.allSettled([
      publisher.publish(exchange, 'key', Buffer.from('no exchange')),
      ...['a', 'b', 'c'].map((body) => publisher.publish('', queue, Buffer.from(body))),
    ]);
    const reasons = outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as ClientFaultError) : undefined));
    // The library rejects every one with the same error, in its words.
    for (const reason of reasons) {
      expect(reason).toBeInstanceOf(ClientFaultError);
      expect(reason).toMatchObject({
        kind: 'channel_closed',
        message: expect.stringMatching(/channel \d+ closed: NOT_FOUND - no exchange/),
      });
    }
    // One channel closed: one signal.
    expect(signals).toMatchObject([
      { kind: 'channel_closed', message: expect.stringMatching(/^channel \d+ closed: NOT_FOUND - no exchange.*\(404\)$/) },
    ]);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
    // What the library does next: the session opens a new confirm channel on the next publish.
    await publisher.publish('', queue, Buffer.from('after'));
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
    expect(signals).toHaveLength(1);
  }, 30_000);

  it('consumer_cancelled: deleting the queue cancels the subscription; the session consumes again only at its next reconnection', async () => {
    const { connection, signals, faults } = await connect();
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    await channel.deleteQueue(queue);
    await eventually(() => signals.length > 0, 5000, 'the consumer_cancelled signal');
    expect(signals).toMatchObject([{ kind: 'consumer_cancelled', message: 'Consumer cancelled by the server' }]);
    expect(connection.state).toBe('up');

    // The queue is back, but nothing consumes it: the session does not re-consume on a live connection.
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    channel.sendToQueue(queue, Buffer.from('while cancelled'));
    await sleep(1000);
    expect(received).toEqual([]);
    expect((await channel.checkQueue(queue)).consumerCount).toBe(0);

    // A reconnection: the session's own recovery re-consumes the subscription it still tracks.
    connection.destroy('test: a reconnection');
    await connection.ensureConnected(10_000);
    await eventually(() => received.includes('while cancelled'), 5000, 'the delivery after the re-consume');
    expect((await channel.checkQueue(queue)).consumerCount).toBe(1);
    expect(faults).toMatchObject([{ kind: 'deadline' }]);
    // The re-consumed subscription is a new library consumer: its cancel is told too.
    await channel.deleteQueue(queue);
    await eventually(() => signals.length > 1, 5000, 'the second consumer_cancelled signal');
    expect(signals.map((signal) => signal.kind)).toEqual(['consumer_cancelled', 'consumer_cancelled']);
  }, 30_000);

  it('a subscription the broker cancelled is no longer healthy (its channel stays open)', async () => {
    const session = await AMQPSession.connect(directUrl, { logger: null });
    try {
      const told: string[] = [];
      const owner: HandleOwner = { currentFault: undefined, signal: (kind) => told.push(kind), forget: () => undefined };
      const consumer = new CloudamqpConsumer(await session.queue(queue, { passive: true }), { ack: 'auto' }, () => undefined, owner);
      await consumer.subscribe();
      expect(consumer.healthy).toBe(true);
      await channel.deleteQueue(queue);
      await eventually(() => told.length > 0, 5000, 'the cancel');
      expect(told).toEqual(['consumer_cancelled']);
      expect(consumer.healthy).toBe(false);
    } finally {
      await session.stop();
    }
  }, 30_000);

  it('a cancelled subscription whose queue is still missing keeps the connection down after a reconnection; nothing re-consumes it', async () => {
    const { connection, signals } = await connect();
    await connection.consume(queue, { ack: 'auto' }, () => undefined);
    await channel.deleteQueue(queue);
    await eventually(() => signals.length > 0, 5000, 'the consumer_cancelled signal');
    connection.destroy('test: a reconnection with the queue missing');
    // The session tries to re-consume, fails (404), tells onrecoverfailed: not back.
    await expect(connection.ensureConnected(3000)).rejects.toThrow(/not re-established by the session.*NOT_FOUND/);
    expect(connection.state).toBe('down');
    // The adapter does not try again on its own when the queue comes back.
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    await sleep(1000);
    expect((await channel.checkQueue(queue)).consumerCount).toBe(0);
  }, 30_000);

  it("channel_closed: the broker closes a consumer's channel (403: another connection consumes the queue exclusively)", async () => {
    const { connection, signals, faults } = await connect();
    await channel.consume(queue, () => undefined, { exclusive: true });
    await expect(connection.consume(queue, { ack: 'auto' }, () => undefined)).rejects.toThrow(/ACCESS_REFUSED/);
    // The subscription's own channel (not one the session silences): the client's onerror tells it.
    await eventually(() => signals.length > 0, 5000, 'the channel_closed signal');
    expect(signals).toMatchObject([
      {
        kind: 'channel_closed',
        message: expect.stringMatching(/^Channel \d+ closed: channel \d+ closed: ACCESS_REFUSED - .*exclusive use.*\(403\)$/),
      },
    ]);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
  }, 30_000);

  it('a nacked publish rejects with PublishNackedError and is no signal', async () => {
    const { connection, signals } = await connect();
    const full = `test.cloudamqp.signals.full.${randomUUID()}`;
    leftovers.push({ kind: 'queue', name: full });
    // The broker nacks publishes to a full queue that rejects them (x-overflow: reject-publish).
    await channel.assertQueue(full, { durable: false, arguments: { 'x-max-length': 1, 'x-overflow': 'reject-publish' } });
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', full, Buffer.from('fits'));
    await expect(publisher.publish('', full, Buffer.from('nacked'))).rejects.toBeInstanceOf(PublishNackedError);
    await publisher.publish('', queue, Buffer.from('the channel is still open'));
    expect(signals).toEqual([]);
  }, 30_000);

  it('blocked / unblocked: while blocked every publish fails at once, as the library refuses it; other calls work', async () => {
    const relay = await startFrameRelay(directUrl);
    relays.push(relay);
    const { connection, signals, faults } = await connect(relay.url);
    const confirmed = await connection.publisher({ confirms: true });
    const plain = await connection.publisher({ confirms: false });
    await confirmed.publish('', queue, Buffer.from('warm'));

    relay.inject(connectionBlockedFrame('low on memory (injected by the test)'));
    await eventually(() => signals.length > 0, 5000, 'the blocked signal');
    expect(signals).toMatchObject([{ kind: 'blocked', message: 'low on memory (injected by the test)' }]);
    const startedNs = nowNs();
    for (const publisher of [confirmed, plain]) {
      await expect(publisher.publish('', queue, Buffer.from('refused'))).rejects.toMatchObject({
        kind: 'blocked',
        message: expect.stringMatching(/Connection blocked by server: low on memory \(injected by the test\)/),
      });
    }
    // At once: nothing waits for an unblock (rabbitmq-client's corked socket would hold them).
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(1000);
    // Nothing is corked: a round trip on the ops channel (the plain publisher's flush) still works.
    await plain.flush(5000);

    relay.inject(connectionUnblockedFrame());
    await eventually(() => signals.length > 1, 5000, 'the unblocked signal');
    expect(signals.map((signal) => signal.kind)).toEqual(['blocked', 'unblocked']);
    await confirmed.publish('', queue, Buffer.from('after'));
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
    expect(faults).toEqual([]);
  }, 30_000);

  it('finding: the client stays blocked across a reconnection to a broker that never blocked the new connection', async () => {
    const relay = await startFrameRelay(directUrl);
    relays.push(relay);
    const { connection, signals } = await connect(relay.url);
    const publisher = await connection.publisher({ confirms: true });
    relay.inject(connectionBlockedFrame('blocked before the reconnection'));
    await eventually(() => signals.length > 0, 5000, 'the blocked signal');
    connection.destroy('test: reconnect while blocked');
    await connection.ensureConnected(10_000);
    // The library keeps the old connection's blocked reason: publishes still refused.
    await expect(publisher.publish('', queue, Buffer.from('refused'))).rejects.toMatchObject({
      kind: 'blocked',
      message: expect.stringMatching(/blocked before the reconnection/),
    });
    // Until a connection.unblocked on this connection, which a broker sends only to a connection it
    // blocked: had the alarm cleared before the reconnection, nothing would lift it (injected here).
    relay.inject(connectionUnblockedFrame());
    await eventually(() => signals.length > 1, 5000, 'the unblocked signal');
    await publisher.publish('', queue, Buffer.from('after'));
    const startedNs = nowNs();
    await connection.close();
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(3000);
  }, 30_000);
});
