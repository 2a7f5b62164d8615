import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { ClientFaultError, createClient, DrainTimeoutError, RECOVERY_MODES, type ClientUnderTest } from '../../src/client';
import { getConfig } from '../../src/config';
import { nowNs } from '../../src/measure/clock';

const url = getConfig().amqpUrl;

describe.each(RECOVERY_MODES)('amqplib client in %s mode (real broker)', (mode) => {
  let client: ClientUnderTest | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('consumes from its fanout binding and proves a round trip', async () => {
    const exchange = `test.adapter.${randomUUID()}`;
    client = createClient(mode, { url, fanoutExchange: exchange });
    await client.start();
    expect(client.queue).toMatch(/^amq\.gen-/);
    expect(client.localPort).toBeGreaterThan(0);

    const publisher = await amqp.connect(url);
    try {
      const channel = await publisher.createChannel();
      channel.publish(exchange, '', Buffer.from('tick'));
      const drained = await client.drainEvents(5000, { collectBodies: true });
      expect(drained.bodies?.map(String)).toEqual(['tick']);
      await channel.deleteExchange(exchange);
    } finally {
      await publisher.close();
    }
    await expect(client.roundTrip(5000)).resolves.toBeGreaterThan(0);
  }, 30_000);

  it('throws DrainTimeoutError when nothing arrives within the deadline', async () => {
    client = createClient(mode, { url });
    await client.start();
    const startedNs = nowNs();
    await expect(client.drainEvents(50)).rejects.toBeInstanceOf(DrainTimeoutError);
    expect(Number(nowNs() - startedNs) / 1e6).toBeGreaterThanOrEqual(45);
  }, 30_000);

  it('reports a killed connection as a fault with its detection time, then recovers with a round trip', async () => {
    client = createClient(mode, { url, backoff: { initialDelayMs: 5 } });
    await client.start();
    const firstPort = client.localPort;
    const killedNs = nowNs();
    client.destroyConnection('test kill');
    const fault = await client.drainEvents(5000).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(fault).toBeInstanceOf(ClientFaultError);
    expect((fault as ClientFaultError).detectedNs).toBeGreaterThanOrEqual(killedNs);

    const ensured = await client.ensureConnection(10_000);
    expect(ensured.attempts).toBeGreaterThanOrEqual(1);
    expect(client.localPort).not.toBe(firstPort);
    await expect(client.roundTrip(5000)).resolves.toBeGreaterThan(0);
    // And it is a healthy client again: a second ensure is a no-op.
    await expect(client.ensureConnection(1000)).resolves.toMatchObject({ attempts: 0 });
  }, 30_000);
});

describe('manual mode reconnect bound', () => {
  it('gives up with a clear error when the broker cannot be reached within the deadline', async () => {
    const client = createClient('manual', {
      url: 'amqp://guest:guest@127.0.0.1:1',
      connectTimeoutMs: 200,
      backoff: { initialDelayMs: 20, maxDelayMs: 50 },
    });
    try {
      await expect(client.start()).rejects.toThrow(/ECONNREFUSED/);
      await expect(client.ensureConnection(300)).rejects.toThrow(/could not reconnect within 300 ms: .*ECONNREFUSED/);
    } finally {
      await client.close();
    }
  }, 30_000);
});
