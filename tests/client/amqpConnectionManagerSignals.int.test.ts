/**
 * What amqp-connection-manager does when the broker closes a channel of its (a publish to a
 * deleted exchange) or cancels one of its consumers (the queue deleted), through its adapter
 * against the real broker, in both profiles. The library gives no signal for either: its
 * ChannelWrapper never listens for a channel's 'error', so amqplib takes the whole connection
 * down, and the adapter reports that as it is (a fault of kind channel_closed), adding nothing.
 */
import type { ClientConnection, ClientProfile, Delivery } from '../../src/client/api';
import type { AcmConsumer } from '../../src/client/amqpConnectionManager/channels';
import { ACM_DEFAULT_RECONNECT_SECONDS } from '../../src/client/amqpConnectionManager/settings';
import { clientInfo, connectClient } from '../../src/client/registry';
import { ClientFaultError, PublishNackedError } from '../../src/client/types';
import { getConfig } from '../../src/config';
import { describeError, TimeoutError } from '../../src/errors';
import { elapsedMs, nowNs, sleep } from '../../src/measure/clock';
import { BrokerObjects, eventually, recordOf } from './support/signals';

const directUrl = getConfig().amqpUrl;
const CLIENT = 'amqp-connection-manager';

describe.each(['defaults', 'normalised'] as const)('amqp-connection-manager (%s): signals (real broker)', (profile: ClientProfile) => {
  /** The library's fixed wait before it reconnects in this profile. */
  const reconnectMs = profile === 'defaults' ? ACM_DEFAULT_RECONNECT_SECONDS * 1000 : 100;
  let broker: BrokerObjects;
  const connections: ClientConnection[] = [];
  const connect = async (): Promise<ClientConnection> => {
    const connection = await connectClient({ name: CLIENT, profile }, { urls: [directUrl], startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    broker = await BrokerObjects.open(directUrl, 'test.signals.acm');
  });
  beforeEach(() => broker.fresh());
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await broker.cleanUp();
  });
  afterAll(() => broker.close());

  it('says that only blocked and unblocked are signals of the library', () => {
    const { signals } = clientInfo({ name: CLIENT, profile });
    expect(signals.blocked).toMatch(/^the manager's 'blocked' event \(\{ reason \}\)/);
    expect(signals.unblocked).toBe("the manager's 'unblocked' event");
    expect(signals.channel_closed).toMatch(/^none: the ChannelWrapper never listens for its channel's 'error'/);
    expect(signals.consumer_cancelled).toMatch(/^none: the ChannelWrapper swallows the null of a basic\.cancel/);
  });

  it('a publish to a deleted exchange takes the whole connection down: no signal, a channel_closed fault, the publish rejected, then its reconnection', async () => {
    const connection = await connect();
    const { signals, faults } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    // A bystander on the same connection: it goes down with it.
    const bodies: string[] = [];
    await connection.consume(broker.queue, { ack: 'auto' }, (delivery) => bodies.push(delivery.body.toString()));
    await publisher.publish(broker.exchange, broker.queue, Buffer.from('before'));
    await broker.deleteExchange();

    const sentNs = nowNs();
    const failure = await publisher.publish(broker.exchange, broker.queue, Buffer.from('to nowhere')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClientFaultError);
    expect((failure as ClientFaultError).kind).toBe('channel_closed');
    // The library rejects the confirm with amqplib's "channel closed", the outage saying why.
    expect((failure as ClientFaultError).message).toMatch(
      /^publish not confirmed: channel closed \(connection lost: Channel closed by server: 404 \(NOT-FOUND\) with message "NOT_FOUND - no exchange/,
    );
    expect(signals).toEqual([]);
    expect(faults.map((fault) => fault.kind)).toEqual(['channel_closed']);
    expect(faults[0]!.message).toMatch(/^Channel closed by server: 404 \(NOT-FOUND\)/);
    expect(faults[0]!.detectedNs).toBeGreaterThan(sentNs);
    expect(connection.state).toBe('down');

    await broker.restore();
    const ensured = await connection.ensureConnected(15_000);
    expect(elapsedMs(faults[0]!.detectedNs, ensured.connectedNs)).toBeGreaterThanOrEqual(reconnectMs - 10);
    await publisher.publish(broker.exchange, broker.queue, Buffer.from('after'));
    await eventually(() => bodies.includes('after'), 5000, 'a delivery after the reconnection');
    expect(signals).toEqual([]);
    expect(faults).toHaveLength(1);
  }, 30_000);

  it('a consumer whose queue is deleted: no consumer_cancelled; its re-consume (404) takes the connection down until the queue is back', async () => {
    const connection = await connect();
    const { signals, faults } = recordOf(connection);
    const deliveries: Delivery[] = [];
    const consumer = (await connection.consume(broker.queue, { ack: 'auto' }, (delivery) => deliveries.push(delivery))) as AcmConsumer;
    await broker.send('before');
    await eventually(() => deliveries.length === 1, 5000, 'the first delivery');

    const deletedNs = nowNs();
    await broker.deleteQueue();
    await eventually(() => faults.length === 1, 5000, 'the fault');
    // The library swallowed the basic.cancel and consumed again at once, without declaring the queue: that 404 killed the connection.
    expect(signals).toEqual([]);
    expect(faults[0]!.kind).toBe('channel_closed');
    expect(faults[0]!.message).toMatch(/^Channel closed by server: 404 \(NOT-FOUND\) with message "NOT_FOUND - no queue/);
    expect(elapsedMs(deletedNs, faults[0]!.detectedNs)).toBeLessThan(2000);

    if (profile === 'normalised') {
      // Every reconnection (every 100 ms) re-consumes, gets the 404 again and loses the connection again.
      const stillOut = await connection.ensureConnected(1500).catch((error: unknown) => error);
      expect(stillOut).toBeInstanceOf(TimeoutError);
      expect(Number(/\((\d+) attempt\(s\) seen/.exec((stillOut as Error).message)?.[1])).toBeGreaterThanOrEqual(2);
      expect(describeError(consumer.lastError)).toMatch(/^Operation failed: BasicConsume; 404 \(NOT-FOUND\)/);
    }
    await broker.restore();
    const ensured = await connection.ensureConnected(15_000);
    expect(elapsedMs(faults[0]!.detectedNs, ensured.connectedNs)).toBeGreaterThanOrEqual(reconnectMs - 10);
    await broker.send('after');
    await eventually(() => deliveries.some((delivery) => delivery.body.toString() === 'after'), 5000, 'a delivery after the queue is back');
    expect(signals).toEqual([]);
    expect(faults).toHaveLength(1);
  }, 30_000);

  it('a nacked publish rejects with PublishNackedError, the connection staying up', async () => {
    await broker.fresh({ 'x-max-length': 1, 'x-overflow': 'reject-publish' });
    const connection = await connect();
    const { signals, faults } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish(broker.exchange, broker.queue, Buffer.from('fits'));
    const nacked = await publisher.publish(broker.exchange, broker.queue, Buffer.from('overflows')).catch((error: unknown) => error);
    expect(nacked).toBeInstanceOf(PublishNackedError);
    await sleep(100);
    expect(signals).toEqual([]);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
  }, 30_000);
});
