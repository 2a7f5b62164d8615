/**
 * amqplib's own signals, through both amqplib adapters, against the real broker: a channel the
 * broker closes (a publish to a deleted exchange: 404; a second ack of one delivery: 406), a
 * consumer it cancels (its queue deleted), a nack, and the confirms in flight when the broker
 * closes the connection (320). What follows each is asserted as it is: the harness loop
 * (`amqplib`, the control) re-opens and re-consumes by itself, labelled as the harness's;
 * amqplib's own recovery (`amqplib-recovery`) leaves the publisher or consumer dead while the
 * connection stays up (a finding).
 */
import { randomUUID } from 'node:crypto';
import type { ClientConnection, ClientName, ClientProfile, Delivery } from '../../src/client/api';
import { clientInfo, connectClient } from '../../src/client/registry';
import { DEFAULT_BACKOFF, ClientFaultError, PublishNackedError } from '../../src/client/types';
import { getConfig } from '../../src/config';
import { TimeoutError } from '../../src/errors';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { startAmqpRelay, type AmqpRelay } from './support/amqpRelay';
import { closeFromBroker, findBrokerConnection } from './support/brokerAdmin';
import { BrokerObjects, eventually, recordOf } from './support/signals';

const directUrl = getConfig().amqpUrl;
const cases: [string, ClientName, ClientProfile][] = (['amqplib', 'amqplib-recovery'] as const).flatMap((name) =>
  (['defaults', 'normalised'] as const).map((profile): [string, ClientName, ClientProfile] => [`${name} (${profile})`, name, profile]),
);
/** The broker's words for a publish to a missing exchange, as amqplib passes them on. */
const NO_EXCHANGE = /^Channel closed by server: 404 \(NOT-FOUND\) with message "NOT_FOUND - no exchange '[^']+' in vhost '\/'"/;

describe.each(cases)('%s: amqplib signals (real broker)', (_label, name, profile) => {
  /** Only the harness loop re-opens what the broker took away; amqplib's recovery does not. */
  const harnessRecovers = name === 'amqplib';
  /** The harness loop's longest retry delay in this profile, jitter included. */
  const maxRetryMs = (profile === 'normalised' ? 1000 : DEFAULT_BACKOFF.maxDelayMs) * (1 + DEFAULT_BACKOFF.jitter);
  let broker: BrokerObjects;
  const connections: ClientConnection[] = [];
  const relays: AmqpRelay[] = [];
  const connect = async (connectionName?: string, url = directUrl): Promise<ClientConnection> => {
    const connection = await connectClient({ name, profile }, { urls: [url], connectionName, startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    broker = await BrokerObjects.open(directUrl, 'test.signals.amqplib');
  });
  beforeEach(() => broker.fresh());
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await Promise.all(relays.splice(0).map((relay) => relay.close()));
    await broker.cleanUp();
  });
  afterAll(() => broker.close());

  it('says how amqplib gives each signal, and who re-opens what', () => {
    const { signals } = clientInfo({ name, profile });
    expect(signals.blocked).toMatch(/'blocked' event \(reason\)/);
    expect(signals.unblocked).toMatch(/'unblocked' event/);
    expect(signals.channel_closed).toMatch(/channel's 'error' event/);
    expect(signals.consumer_cancelled).toMatch(/consume callback called with null/);
    if (harnessRecovers) expect(signals.consumer_cancelled).toMatch(/harness loop re-consumes/);
    else expect(signals.channel_closed).toMatch(/stays dead/);
  });

  it('a publish to a deleted exchange: one channel_closed signal, and that publish and the confirm in flight reject with it', async () => {
    const connection = await connect();
    const { signals, faults } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish(broker.exchange, broker.queue, Buffer.from('before'));
    await broker.deleteExchange();

    const sentNs = nowNs();
    // Both go out before the broker's channel.close comes back: the second is a confirm in flight on a channel being closed.
    const failures = await Promise.all(
      ['one', 'two'].map((body) => publisher.publish(broker.exchange, broker.queue, Buffer.from(body)).catch((error: unknown) => error)),
    );
    const settledNs = nowNs();
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ClientFaultError);
      expect((failure as ClientFaultError).kind).toBe('channel_closed');
      expect((failure as ClientFaultError).message).toMatch(NO_EXCHANGE);
    }
    expect(signals.map((signal) => signal.kind)).toEqual(['channel_closed']);
    expect(signals[0]!.message).toBe((failures[0] as Error).message);
    expect(signals[0]!.detectedNs).toBeGreaterThan(sentNs);
    expect(signals[0]!.detectedNs).toBeLessThanOrEqual(settledNs);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');

    await broker.restore();
    if (harnessRecovers) {
      // The harness loop has re-opened the channel: publishing works again, the connection never went down.
      const ensured = await connection.ensureConnected(5000);
      expect(ensured.attempts).toBe(0);
      await publisher.publish(broker.exchange, broker.queue, Buffer.from('after'));
      expect((await broker.queueState()).messageCount).toBe(2);
    } else {
      // amqplib's recovery re-opens nothing while the connection is up: the publisher stays dead, the exchange back or not.
      const later = await publisher.publish(broker.exchange, broker.queue, Buffer.from('after')).catch((error: unknown) => error);
      expect(later).toBeInstanceOf(ClientFaultError);
      expect((later as ClientFaultError).kind).toBe('channel_closed');
      expect((later as ClientFaultError).detectedNs).toBe(signals[0]!.detectedNs);
      await expect(connection.ensureConnected(500)).rejects.toThrow(
        /the publisher \(confirms\) stays dead \(Channel closed by server: 404/,
      );
      expect((await broker.queueState()).messageCount).toBe(1);
    }
    expect(signals).toHaveLength(1);
  }, 30_000);

  it('a plain publisher: its publish to a deleted exchange is written, and its flush rejects with the channel_closed that follows', async () => {
    const connection = await connect();
    const { signals } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: false });
    await broker.deleteExchange();
    await publisher.publish(broker.exchange, broker.queue, Buffer.from('to nowhere'));
    const flushed = await publisher.flush(5000).catch((error: unknown) => error);
    expect(flushed).toBeInstanceOf(ClientFaultError);
    expect((flushed as ClientFaultError).kind).toBe('channel_closed');
    expect((flushed as ClientFaultError).message).toMatch(NO_EXCHANGE);
    expect(signals.map((signal) => signal.kind)).toEqual(['channel_closed']);
    if (!harnessRecovers) {
      const later = await publisher.publish(broker.exchange, broker.queue, Buffer.from('later')).catch((error: unknown) => error);
      expect((later as ClientFaultError).kind).toBe('channel_closed');
    }
  }, 30_000);

  it("a consumer's channel closed by the broker (a second ack of one delivery: 406): channel_closed", async () => {
    const connection = await connect();
    const { signals, faults } = recordOf(connection);
    const deliveries: Delivery[] = [];
    await connection.consume(broker.queue, { ack: 'manual', prefetch: 10 }, (delivery) => deliveries.push(delivery));
    await broker.send('first');
    await eventually(() => deliveries.length === 1, 5000, 'the first delivery');
    deliveries[0]!.ack();
    const ackedNs = nowNs();
    deliveries[0]!.ack();
    await eventually(() => signals.length === 1, 5000, 'the signal');
    expect(signals[0]!.kind).toBe('channel_closed');
    expect(signals[0]!.message).toMatch(
      /^Channel closed by server: 406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - unknown delivery tag 1"/,
    );
    expect(signals[0]!.detectedNs).toBeGreaterThan(ackedNs);
    expect(faults).toEqual([]);

    await broker.send('second');
    if (harnessRecovers) {
      await connection.ensureConnected(5000);
      await eventually(
        () => deliveries.some((delivery) => delivery.body.toString() === 'second'),
        5000,
        'a delivery on the re-opened channel',
      );
    } else {
      await sleep(500);
      expect(deliveries.map((delivery) => delivery.body.toString())).toEqual(['first']);
      expect(await broker.queueState()).toEqual(expect.objectContaining({ messageCount: 1, consumerCount: 0 }));
      await expect(connection.ensureConnected(500)).rejects.toThrow(/the consumer of queue "[^"]+" stays dead/);
    }
    expect(connection.state).toBe('up');
    expect(signals).toHaveLength(1);
  }, 30_000);

  it('a consumer whose queue is deleted: consumer_cancelled, then what follows', async () => {
    const connection = await connect();
    const { signals, faults } = recordOf(connection);
    const bodies: string[] = [];
    await connection.consume(broker.queue, { ack: 'auto' }, (delivery) => bodies.push(delivery.body.toString()));
    await broker.send('before');
    await eventually(() => bodies.includes('before'), 5000, 'the first delivery');

    const deletedNs = nowNs();
    await broker.deleteQueue();
    await eventually(() => signals.length === 1, 5000, 'the signal');
    expect(signals[0]!.kind).toBe('consumer_cancelled');
    expect(signals[0]!.message).toMatch(/^the broker cancelled the consumer of queue "[^"]+" \(basic\.cancel, consumer tag amq\.ctag-/);
    expect(signals[0]!.detectedNs).toBeGreaterThan(deletedNs);
    expect(elapsedMs(deletedNs, signals[0]!.detectedNs)).toBeLessThan(2000);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');

    if (harnessRecovers) {
      // The harness loop consumes again and again (each try a new channel the broker closes: 404) until the queue is back.
      const stillOut = await connection.ensureConnected(300).catch((error: unknown) => error);
      expect(stillOut).toBeInstanceOf(TimeoutError);
      expect((stillOut as Error).message).toMatch(
        /the harness loop is still re-opening the consumer of queue "[^"]+" \(.*last attempt: Operation failed: BasicConsume; 404 \(NOT-FOUND\)/,
      );
      const restoredNs = nowNs();
      await broker.restore();
      const ensured = await connection.ensureConnected(5000);
      expect(ensured.attempts).toBe(0);
      // Back within one retry delay (the loop's cap in this profile) and the time to consume.
      expect(elapsedMs(restoredNs, ensured.connectedNs)).toBeLessThan(maxRetryMs + 500);
      await broker.send('after');
      await eventually(() => bodies.includes('after'), 5000, 'a delivery to the re-established consumer');
    } else {
      // amqplib's recovery does not consume again: the queue back, the consumer stays silent.
      await broker.restore();
      await broker.send('after');
      await sleep(500);
      expect(bodies).toEqual(['before']);
      expect(await broker.queueState()).toEqual(expect.objectContaining({ messageCount: 1, consumerCount: 0 }));
      await expect(connection.ensureConnected(500)).rejects.toThrow(/the consumer of queue "[^"]+" stays dead \(the broker cancelled/);
    }
    // The retries' channel closes are the harness's own doing, not signals of the library.
    expect(signals.map((signal) => signal.kind)).toEqual(['consumer_cancelled']);
    expect(faults).toEqual([]);
  }, 30_000);

  it('a nacked publish rejects with PublishNackedError, and the channel stays open', async () => {
    await broker.fresh({ 'x-max-length': 1, 'x-overflow': 'reject-publish' });
    const connection = await connect();
    const { signals } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish(broker.exchange, broker.queue, Buffer.from('fits'));
    const nacked = await publisher.publish(broker.exchange, broker.queue, Buffer.from('overflows')).catch((error: unknown) => error);
    expect(nacked).toBeInstanceOf(PublishNackedError);
    expect((nacked as Error).message).toMatch(/nacked/);
    expect(signals).toEqual([]);
    await publisher.publish('', `${broker.queue}.nowhere`, Buffer.from('unroutable, confirmed'));
  }, 30_000);

  it("rejects the confirms in flight when the broker closes the connection (320) with the fault's kind, broker_closed", async () => {
    // The relay keeps the publishes from the broker, so none is confirmed before its connection.close: all are in flight.
    const relay = await startAmqpRelay(directUrl);
    relays.push(relay);
    const connectionName = `test-signals-320-${randomUUID()}`;
    const connection = await connect(connectionName, relay.url);
    const { faults } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    const side = await findBrokerConnection(directUrl, connectionName);
    relay.holdToBroker(true);
    const outcomes = Array.from({ length: 20 }, () =>
      publisher.publish('', broker.queue, Buffer.from('in flight')).then(
        () => 'confirmed',
        (error: unknown) => error,
      ),
    );
    await closeFromBroker(directUrl, side, 'test: confirms in flight');
    await eventually(() => faults.length === 1, 10_000, 'the fault');
    // amqplib's recovery reconnects through the relay at once: let it.
    relay.holdToBroker(false);

    expect(faults[0]!.kind).toBe('broker_closed');
    expect(faults[0]!.message).toMatch(/320 \(CONNECTION-FORCED\)/);
    // amqplib rejects them ('channel closed') as its channels close, before its connection's 'close' tells the fault.
    for (const outcome of await Promise.all(outcomes)) {
      expect(outcome).toBeInstanceOf(ClientFaultError);
      expect((outcome as ClientFaultError).kind).toBe('broker_closed');
      expect((outcome as ClientFaultError).detectedNs).toBe(faults[0]!.detectedNs);
    }
  }, 30_000);
});
