/**
 * What foo-foo-mq does on its own, measured through its adapter against the real broker and the
 * embedded proxy: the settings each profile gives it; with its defaults, giving up for good after
 * a drop and two failed attempts (a publish then rejected, no attempt after the broker is back);
 * normalised, a reset (reconnected, its subscription consuming again) and publishes made while the
 * broker cannot be reached (held, more than its limit of 100, sent after the reconnection); a
 * close after a reconnection that hangs in foo-foo-mq; a deleted queue taking the whole connection
 * down, then its channel opened again and again until the queue is back, and the queue forgotten
 * at the next reconnection; an ack of a delivery
 * from the lost channel acking another message on the new one, and the broker's close (320) told as
 * such, after which those acks make the broker close the new channel; a channel error on a consumer's
 * channel (told; the consumer then stays stopped); and one consumer per queue per connection.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import type { ClientConnection, ClientProfile, Delivery } from '../../src/client/api';
import { fooFooMqBroker } from '../../src/client/fooFooMq/fooFooMqApi';
import { clientInfo, connectClient } from '../../src/client/registry';
import { getConfig, proxiedAmqpUrl } from '../../src/config';
import { ToxiproxyClient } from '../../src/faults';
import { sharedBrokerActions } from '../../src/broker/actions';
import { listBrokerConnections } from '../../src/faults/brokerConnections';
import { elapsedMs, nowNs, sleep, withinMs } from '../../src/measure/clock';
import { startProxyServer, type ProxyServer } from '../../src/proxy';
import { freePort } from '../support/ports';
import { eventually, recordOf } from './support/signals';

const directUrl = getConfig().amqpUrl;
const CLIENT = 'foo-foo-mq';

describe('foo-foo-mq adapter (real broker, embedded proxy)', () => {
  let admin: ChannelModel;
  let channel: Channel;
  let proxy: ProxyServer;
  let api: ToxiproxyClient;
  let proxiedUrl: string;
  let queue: string;
  const connections: ClientConnection[] = [];
  const connect = async (profile: ClientProfile, urls: string[] = [proxiedUrl], connectionName = `test-ffmq-${randomUUID()}`) => {
    const connection = await connectClient({ name: CLIENT, profile }, { urls, connectionName, startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };
  /** Resets the client's connection (RST as data flows towards it), then lets new connections through. */
  const reset = async () => {
    await api.addToxic('broker', { type: 'reset_peer', name: 'reset', stream: 'downstream', attributes: { timeout: 0 } });
    channel.sendToQueue(queue, Buffer.from('meets the reset'));
    await sleep(100);
    await api.removeToxic('broker', 'reset');
  };

  beforeAll(async () => {
    admin = await amqp.connect(directUrl);
    admin.on('error', () => undefined);
    channel = await admin.createChannel();
    channel.on('error', () => undefined);
    proxy = await startProxyServer({ host: '127.0.0.1', port: 0 });
    const listenPort = await freePort();
    const upstream = new URL(directUrl);
    api = new ToxiproxyClient(proxy.url);
    await api.createProxy({ name: 'broker', listen: `127.0.0.1:${listenPort}`, upstream: `${upstream.hostname}:${upstream.port || 5672}` });
    proxiedUrl = proxiedAmqpUrl({ amqpUrl: directUrl, proxyListen: { host: '127.0.0.1', port: listenPort } });
  });

  beforeEach(async () => {
    queue = `test.ffmq.${randomUUID()}`;
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await channel.deleteQueue(queue).catch(() => undefined);
    await api.updateProxy('broker', { enabled: true });
    for (const toxic of await api.listToxics('broker')) await api.removeToxic('broker', toxic.name);
  });

  afterAll(async () => {
    // foo-foo-mq's ack tick is one interval for the process; the direct connection of the last test started it again.
    fooFooMqBroker().clearAckInterval();
    await proxy?.close();
    await admin?.close().catch(() => undefined);
  });

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

  it('with a prefetch limit, takes at most that many deliveries per ack tick of 500 ms, however fast it acks', async () => {
    const connection = await connect('normalised', [directUrl]);
    let delivered = 0;
    channel.sendToQueue(queue, Buffer.from('first'));
    for (let n = 0; n < 999; n += 1) channel.sendToQueue(queue, Buffer.from(`backlog ${n}`));
    const startedNs = nowNs();
    await connection.consume(queue, { ack: 'manual', prefetch: 20 }, (delivery) => {
      delivered += 1;
      delivery.ack();
    });
    await sleep(2000);
    // Each window of 20 waits for the tick that sends its acks (src/index.js:95, src/ackBatch.js:97-124):
    // at most one window per tick, and the first, in the time taken.
    const ticks = Math.floor(elapsedMs(startedNs, nowNs()) / 500);
    expect(delivered).toBeGreaterThanOrEqual(20);
    expect(delivered).toBeLessThanOrEqual(20 * (ticks + 2));
  }, 30_000);

  it("tells the broker's 320 close as broker_closed; then its batched acks of the lost channel go out on the new one, which the broker closes (406)", async () => {
    const connectionName = `test-ffmq-320-${randomUUID()}`;
    const connection = await connect('normalised', [proxiedUrl], connectionName);
    const { faults } = recordOf(connection);
    // More windows of 20 than the test takes, each waiting for the ack tick (500 ms).
    for (let n = 0; n < 200; n += 1) channel.sendToQueue(queue, Buffer.from(`backlog ${n}`));
    let delivered = 0;
    let holding = false;
    const held: Delivery[] = [];
    await connection.consume(queue, { ack: 'manual', prefetch: 20 }, (delivery) => {
      delivered += 1;
      if (holding) held.push(delivery);
      else delivery.ack();
    });
    // A first window acked as it came (tags 1 to 20), then a window held: once 20 are held, the
    // broker has received every ack before them (prefetch 20), and holds tags above 20.
    await eventually(() => delivered >= 20, 10_000, 'the first window of deliveries');
    holding = true;
    await eventually(() => held.length === 20, 10_000, 'a whole window held unacked');
    // Acked with the process-wide tick stopped, so these acks are still in the lost channel's batch
    // at the close, whenever the close lands (acked as they come, a close just after a tick would
    // find that batch empty, and no 406 would follow). The reconnection starts the tick again
    // (its `connected`, src/index.js:92-95); the lost channel's batch keeps listening to it, its
    // queue made again with a new batch (src/queueFsm.js:247-251, :109, src/amqp/queue.js:467,
    // src/ackBatch.js:253-259).
    fooFooMqBroker().clearAckInterval();
    for (const delivery of held.splice(0)) delivery.ack();
    const sinceNs = nowNs();
    const actions = sharedBrokerActions(directUrl);
    try {
      expect(await actions.closeConnections(connectionName, 'closed by the foo-foo-mq test')).toHaveLength(1);
    } finally {
      await actions.close();
    }
    await eventually(() => faults.length > 0, 10_000, 'the fault');
    // amqplib 0.8 closes on a 320 without an `error`; foo-foo-mq passes its close reason on.
    expect(faults.map((fault) => fault.kind)).toEqual(['broker_closed']);
    // At the first tick after the reconnection the lost channel's highest tag (above 20) is acked on
    // the new channel, which has delivered 20 at most (the consumer holds them all, unacked).
    const refusedAck = async () =>
      ((await api.events('broker', sinceNs)) ?? []).some(
        (event) =>
          event.detail?.method === 'channel.close' &&
          event.detail.reply_code === 406 &&
          /unknown delivery tag/.test(String(event.detail.reply_text)),
      );
    let refused = await refusedAck();
    for (let waited = 0; waited < 10_000 && !refused; waited += 100) {
      await sleep(100);
      refused = await refusedAck();
    }
    expect(refused).toBe(true);
    // Nothing is acked from here on: a batch left with acks when its channel is released would throw
    // at a later test's tick ("Cannot invoke operation 'ack' on released channel", src/amqp/iomonad.js:331-334).
    // foo-foo-mq leaves two rejections unhandled around here: the prefetch of the queue's check on
    // the channel it opened again (src/amqp/queue.js:60-65), when the connection ends first, and its
    // close's releases (src/connectionFsm.js:305-308), when the queue starts again during the close.
    // The test lets the first settle, then drops the connection, so that the close has nothing to release.
    await sleep(1000);
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => connection.state === 'down', 5000, 'the drop');
  }, 40_000);

  it('an ack of a delivery from the lost channel acks, by its tag, a message of the new channel the consumer never acked', async () => {
    const connection = await connect('normalised');
    const held = new Map<string, Delivery>();
    await connection.consume(queue, { ack: 'manual', prefetch: 10 }, (delivery) => {
      const body = delivery.body.toString() + (delivery.redelivered ? ' (again)' : '');
      if (body === 'first') delivery.ack();
      else held.set(body, delivery);
    });
    // Acked, and its ack sent on the 500 ms tick: the old channel's tag 1 is done with.
    channel.sendToQueue(queue, Buffer.from('first'));
    await sleep(800);
    channel.sendToQueue(queue, Buffer.from('held'));
    await eventually(() => held.has('held'), 5000, 'the held delivery (tag 2 of the first channel)');
    await reset();
    await connection.ensureConnected(15_000);
    // The new channel: 'held' again (tag 1), 'meets the reset' again (tag 2), then a new one (tag 3).
    await eventually(() => held.has('held (again)') && held.has('meets the reset (again)'), 5000, 'the redeliveries');
    channel.sendToQueue(queue, Buffer.from('new'));
    await eventually(() => held.has('new'), 5000, 'a new delivery');
    held.get('held')!.ack();
    // That ack goes out at the next tick, within the 500 ms; nothing else is ever acked, so no batch of
    // this test keeps an ack for a tick to send on a channel the close releases, from which foo-foo-mq's
    // timer would throw (src/amqp/iomonad.js:331-334).
    await sleep(1200);
    // Drop the connection with everything else unacked: the broker puts back what nobody acked.
    await api.updateProxy('broker', { enabled: false });
    await eventually(() => connection.state === 'down', 5000, 'the drop');
    await sleep(300);
    const left: string[] = [];
    for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true }))
      left.push(message.content.toString());
    // Tag 2 acked "multiple" on the new channel took 'held' and 'meets the reset' with it.
    expect(left).toEqual(['new']);
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
