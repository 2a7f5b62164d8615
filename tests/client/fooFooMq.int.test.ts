/**
 * What foo-foo-mq does on its own, measured through its adapter against the real broker and the
 * embedded proxy: the settings each profile gives it; with its defaults, giving up for good after
 * a drop and two failed attempts (a publish then rejected, no attempt after the broker is back);
 * normalised, a reset (reconnected, its subscription consuming again) and publishes made while the
 * broker cannot be reached (held, more than its limit of 100, sent after the reconnection); a
 * close after a reconnection that hangs in foo-foo-mq; a deleted queue taking the whole connection
 * down, then its channel opened again and again until the queue is back, and the queue forgotten
 * at the next reconnection; a channel error on a consumer's channel (told; the consumer then
 * stays stopped); and one consumer per queue per connection. Its batched acknowledgements:
 * fooFooMqAcks.int.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Channel } from 'amqplib';
import { fooFooMqBroker } from '../../src/client/fooFooMq/fooFooMqApi';
import { clientInfo } from '../../src/client/registry';
import type { ToxiproxyClient } from '../../src/faults';
import { listBrokerConnections } from '../../src/faults/brokerConnections';
import { elapsedMs, nowNs, sleep, withinMs } from '../../src/measure/clock';
import { CLIENT, directUrl, useFooFooMqFixture } from './support/fooFooMqFixture';
import { eventually, recordOf } from './support/signals';

describe('foo-foo-mq adapter (real broker, embedded proxy)', () => {
  const fixture = useFooFooMqFixture();
  const { connect, reset } = fixture;
  let channel: Channel;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  beforeEach(() => ({ channel, api, proxiedUrl, queue } = fixture.current()));

  it("reports each profile in foo-foo-mq's own option names, with its defaults from the source", () => {
    const defaults = clientInfo({ name: CLIENT, profile: 'defaults' });
    expect(defaults).toMatchObject({ library: 'foo-foo-mq', multipleHosts: true, recovery: 'library' });
    expect(defaults.version).toMatch(/^8\./);
    expect(defaults.settings).toMatchObject({ heartbeat: 'default (30)', waitMin: 'default (0)', waitMax: 'default (5000)' });
    expect(defaults.settings.retryLimit).toMatch(/^default \(3/);
    expect(clientInfo({ name: CLIENT, profile: 'normalised' }).settings).toMatchObject({ heartbeat: 5, waitMin: 100, timeout: 2000 });
  });

  it('with its defaults gives up for good after a drop and two failed attempts: a publish is rejected, and nothing is tried once the broker is back', async () => {
    const connection = await connect('defaults');
    const { faults } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));
    // Disabling the proxy closes its connections and refuses new ones.
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => faults.length > 0, 10_000, 'the fault');
    const held = publisher.publish('', queue, Buffer.from('held')).then(
      () => 'confirmed',
      (error: Error) => error.message,
    );
    await expect(held).resolves.toMatch(/Could not establish a connection to any known nodes/);
    await expect(connection.ensureConnected(10_000)).rejects.toThrow(/gave up after 2 attempt\(s\)/);

    await api.updateProxy('broker', { enabled: true });
    const sinceNs = nowNs();
    await sleep(1500);
    expect(connection.state).toBe('down');
    expect(((await api.events('broker', sinceNs)) ?? []).filter((event) => event.detail?.method === 'connection.start')).toEqual([]);
    // Its state machine has no `close` once unreachable: the adapter's bound ends it.
    const startedNs = nowNs();
    await connection.close();
    expect(connection.closeHitBound).toBe(true);
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(4000);
  }, 30_000);

  it('normalised, after a reset reconnects on a new socket and its subscription consumes again', async () => {
    const connection = await connect('normalised');
    const { faults } = recordOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const firstPort = connection.localPort;
    await reset();
    const ensured = await connection.ensureConnected(15_000);
    expect(faults.map((fault) => fault.kind)).toEqual(['reset']);
    expect(ensured.attempts).toBeGreaterThanOrEqual(1);
    expect(connection.localPort).not.toBe(firstPort);
    channel.sendToQueue(queue, Buffer.from('after'));
    await eventually(() => received.includes('after'), 10_000, 'a delivery on the new subscription');
  }, 30_000);

  it('normalised, holds more publishes than its limit of 100 while the broker cannot be reached, and sends them all once back', async () => {
    const connection = await connect('normalised');
    const received = new Set<string>();
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.add(delivery.body.toString()));
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', queue, Buffer.from('before'));
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => connection.state === 'down', 10_000, 'the fault');
    let settled = 0;
    const held = Array.from({ length: 150 }, (_, n) =>
      publisher.publish('', queue, Buffer.from(`held ${n}`)).finally(() => (settled += 1)),
    );
    await sleep(1000);
    expect(settled).toBe(0);

    await api.updateProxy('broker', { enabled: true });
    const ensured = await connection.ensureConnected(15_000);
    expect(ensured.attempts).toBeGreaterThan(1);
    await Promise.all(held);
    await eventually(() => received.size === 151, 10_000, 'every held message');
  }, 40_000);

  it('normalised, a close after a reconnection hangs in foo-foo-mq (the replaced default exchange never releases): the bound ends it, and nothing is left', async () => {
    const name = `test-ffmq-close-${randomUUID()}`;
    const connection = await connect('normalised', [proxiedUrl], name);
    await connection.consume(queue, { ack: 'auto' }, () => undefined);
    await reset();
    await connection.ensureConnected(15_000);
    const startedNs = nowNs();
    await connection.close();
    expect(connection.closeHitBound).toBe(true);
    expect(elapsedMs(startedNs, nowNs())).toBeLessThan(4000);
    let names = (await listBrokerConnections(directUrl)).names;
    for (let waited = 0; waited < 5000 && names.includes(name); waited += 250) {
      await sleep(250);
      names = (await listBrokerConnections(directUrl)).names;
    }
    expect(names).not.toContain(name);
  }, 30_000);

  it('a deleted queue takes the whole connection down (consumer_cancelled); its channel is then opened and refused again and again; it consumes once the queue is back, but not after the next reconnection', async () => {
    const connection = await connect('normalised');
    const { faults, signals } = recordOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    await channel.deleteQueue(queue);
    await eventually(() => faults.length > 0, 10_000, 'the fault');
    expect(faults.map((fault) => [fault.kind, fault.message])).toEqual([['consumer_cancelled', 'Broker cancelled the consumer remotely']]);
    const sinceNs = nowNs();
    await sleep(2000);
    const refused = ((await api.events('broker', sinceNs)) ?? []).filter(
      (event) => event.detail?.method === 'channel.close' && event.detail.reply_code === 404,
    );
    // No wait between attempts: its channel's wait is back to 0 at every open (src/amqp/iomonad.js:80).
    // (A backoff from 0 ms growing by 100 ms, its own wait for a channel, would allow 7 in 2 s.)
    expect(refused.length).toBeGreaterThan(20);
    expect(connection.state).toBe('down');
    expect(signals).toEqual([]);

    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    await connection.ensureConnected(10_000);
    channel.sendToQueue(queue, Buffer.from('back'));
    await eventually(() => received.includes('back'), 10_000, 'a delivery after the queue came back');

    // Its failed check made the topology forget the queue (src/topology.js:214-219): the next reconnection leaves it alone.
    await reset();
    await expect(connection.ensureConnected(5000)).rejects.toThrow(/did not recover within 5000 ms/);
    expect((await channel.checkQueue(queue)).consumerCount).toBe(0);
  }, 40_000);

  it("a channel error on a consumer's channel is told (channel_closed), and leaves the consumer stopped with the connection up", async () => {
    const connection = await connect('defaults', [directUrl]);
    const { faults, signals } = recordOf(connection);
    const received: string[] = [];
    await connection.consume(queue, { ack: 'manual' }, (delivery) => {
      received.push(delivery.body.toString());
      delivery.ack();
    });
    channel.sendToQueue(queue, Buffer.from('before'));
    await eventually(() => received.includes('before'), 5000, 'the first delivery');
    // The broker closes the channel for an ack of a tag it never delivered (406), sent on foo-foo-mq's own channel of the queue.
    const name = (connection as unknown as { readonly name: string }).name;
    const queueChannel = await fooFooMqBroker().connections[name]!.connection.getChannel(`queue:${queue}`, false, 'test');
    (queueChannel as unknown as { ack(message: unknown, allUpTo: boolean): void }).ack({ fields: { deliveryTag: 999 } }, false);
    await eventually(() => signals.some((signal) => signal.kind === 'channel_closed'), 5000, 'the channel_closed signal');
    expect(signals[0]!.message).toMatch(/406 \(PRECONDITION-FAILED\).*unknown delivery tag 999/);
    // Its channel is opened again and the queue checked on it (src/queueFsm.js:121-124, :40-56), but nothing consumes.
    let consumers = (await channel.checkQueue(queue)).consumerCount;
    for (let waited = 0; waited < 3000 && consumers > 0; waited += 100) {
      await sleep(100);
      consumers = (await channel.checkQueue(queue)).consumerCount;
    }
    expect(consumers).toBe(0);
    channel.sendToQueue(queue, Buffer.from('after'));
    await sleep(1000);
    expect(received).toEqual(['before']);
    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
  }, 30_000);

  it('has one consumer per queue per connection, and none again once it stopped: foo-foo-mq would wait for ever', async () => {
    const connection = await connect('defaults', [directUrl]);
    const consumer = await connection.consume(queue, { ack: 'auto' }, () => undefined);
    await expect(connection.consume(queue, { ack: 'auto' }, () => undefined)).rejects.toThrow(/one subscription per queue per connection/);
    await consumer.cancel();
    await expect(connection.consume(queue, { ack: 'auto' }, () => undefined)).rejects.toThrow(/cannot start it again/);

    // foo-foo-mq itself, on a connection of the test's own: both calls stay pending.
    const broker = fooFooMqBroker();
    const name = `test-ffmq-direct-${randomUUID()}`;
    await broker.addConnection({ name, uri: directUrl, replyQueue: false });
    const handler = broker.handle({ queue, autoNack: false, handler: () => undefined });
    try {
      await broker.addQueue(queue, { passive: true }, name);
      await broker.startSubscription(queue, false, name);
      const settles = (promise: Promise<unknown>) => Promise.race([promise.then(() => true), sleep(1500).then(() => false)]);
      expect(await settles(broker.startSubscription(queue, false, name))).toBe(false);
      await broker.getQueue(queue, name)!.unsubscribe();
      expect(await settles(broker.startSubscription(queue, false, name))).toBe(false);
    } finally {
      handler.unsubscribe();
      await withinMs(broker.close(name, true), 2000);
      delete broker.connections[name];
    }
  }, 30_000);
});
