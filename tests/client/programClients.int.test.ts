/**
 * The clients in other languages (kombu, pika, amqp091-go: programs of adapters/<language>/)
 * against the real broker and the embedded fault proxy: a reset through the proxy reaches each
 * library and comes back as a typed fault timed in the program's own process, and a program that
 * dies (killed with its group, as a misbehaving one is) leaves no connection on the broker; and
 * consumers that hand over counts (the consume throughput suite's) keep handing them over while a
 * backlog flows, not only once it is gone; amqp091-go's timed run of confirmed publishes stops at a
 * confirm that does not settle within its publish bound, naming it, instead of waiting for ever.
 * Skipped, saying how to install them, where scripts/setup-clients.sh has not run.
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { adapterOf, unavailableClients } from '../../src/client/registry';
import type { ClientConnection } from '../../src/client/api';
import { ContractFaultProxy } from '../../src/client/contract/faultProxy';
import { listBrokerConnections } from '../../src/faults/brokerConnections';
import { getConfig } from '../../src/config';
import { nowNs } from '../../src/measure/clock';
import { startEmbeddedProxyEntry } from '../support/embeddedProxy';

const PROGRAM_CLIENTS = ['kombu', 'pika', 'amqp091-go'] as const;
const missing = new Map(unavailableClients().map(({ name, why }) => [name as string, why]));
const url = getConfig().amqpUrl;

async function waitUntil(predicate: () => boolean | Promise<boolean>, boundMs: number): Promise<boolean> {
  const until = performance.now() + boundMs;
  while (performance.now() < until) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return predicate();
}

describe.each(PROGRAM_CLIENTS)('the client program %s (real broker, embedded proxy)', (name) => {
  const run = missing.has(name) ? it.skip : it;
  if (missing.has(name)) it(`is skipped here: ${missing.get(name)}`, () => expect(missing.get(name)).toMatch(/setup-clients/));

  let proxy: ContractFaultProxy | undefined;
  const opened: ClientConnection[] = [];
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((connection) => connection.close()));
    await proxy?.close();
    proxy = undefined;
  });

  run(
    'tells a reset through the proxy as a reset, timed in its own process between the arming and now',
    async () => {
      proxy = await ContractFaultProxy.start(url);
      const connection = await adapterOf(name).connect('normalised', {
        urls: [proxy.proxiedUrl],
        connectionName: `amqp-bench.test.${randomUUID()}`,
      });
      opened.push(connection);
      const faults: { kind: string; detectedNs: bigint }[] = [];
      connection.onFault((fault) => faults.push(fault));
      // A round trip after the arming: the broker's answer is the data the reset fires on.
      const publisher = await connection.publisher({ confirms: false });
      const armedNs = await proxy.resetOnNextData();
      await publisher.flush(2000).catch(() => undefined);
      expect(await waitUntil(() => faults.length > 0, 10_000)).toBe(true);
      expect(faults[0]!.kind).toBe('reset');
      expect(faults[0]!.detectedNs).toBeGreaterThanOrEqual(armedNs);
      expect(faults[0]!.detectedNs).toBeLessThanOrEqual(nowNs());
      await proxy.heal();
      const back = await connection.ensureConnected(10_000);
      expect(back.attempts).toBeGreaterThanOrEqual(1);
      expect(connection.state).toBe('up');
    },
    60_000,
  );

  run(
    'times each delivery in its own process where it hands deliveries over in batches (the Python programs)',
    async () => {
      const queue = `amqp-bench.test.received.${randomUUID()}`;
      const admin = await amqp.connect(url);
      try {
        const channel = await admin.createChannel();
        await channel.assertQueue(queue, { durable: false, arguments: { 'x-expires': 60_000 } });
        const connection = await adapterOf(name).connect('defaults', { urls: [url], connectionName: `amqp-bench.test.${randomUUID()}` });
        opened.push(connection);
        const seen: { receivedNs: bigint | undefined; callbackNs: bigint }[] = [];
        await connection.consume(queue, { ack: 'auto' }, (delivery) => seen.push({ receivedNs: delivery.receivedNs, callbackNs: nowNs() }));
        const sentNs = nowNs();
        channel.sendToQueue(queue, Buffer.from('timed'));
        expect(await waitUntil(() => seen.length === 1, 10_000)).toBe(true);
        const [one] = seen;
        // The Go program hands each delivery over as it comes: the callback's moment is its time.
        if (name === 'amqp091-go') expect(one!.receivedNs).toBeUndefined();
        else {
          expect(one!.receivedNs).toBeGreaterThanOrEqual(sentNs);
          expect(one!.receivedNs).toBeLessThanOrEqual(one!.callbackNs);
        }
        await channel.deleteQueue(queue);
      } finally {
        await admin.close().catch(() => undefined);
      }
    },
    60_000,
  );

  run(
    'killed with its group, it leaves no connection on the broker',
    async () => {
      const connectionName = `amqp-bench.test.${randomUUID()}`;
      const connection = await adapterOf(name).connect('defaults', { urls: [url], connectionName });
      opened.push(connection);
      const listed = async () => (await listBrokerConnections(url)).names.includes(connectionName);
      expect(await waitUntil(listed, 10_000)).toBe(true);
      const pid = (connection as unknown as { pid: number }).pid;
      process.kill(-pid, 'SIGKILL');
      expect(await waitUntil(async () => !(await listed()), 15_000)).toBe(true);
      await expect(connection.ensureConnected(1000)).rejects.toThrow(/exited \(killed by SIGKILL\)/);
    },
    60_000,
  );

  run(
    "hands over its consumers' counts while a backlog flows, not only when it runs dry",
    async () => {
      // Ten programs, each on a backlog of its own: on two cores each one's socket always has data
      // waiting, which is when a drain loop that ends only on a quiet socket holds every count back.
      const consumers = 10;
      const backlogEach = 3_000;
      const queues = Array.from({ length: consumers }, () => `amqp-bench.test.counts.${randomUUID()}`);
      const admin = await amqp.connect(url);
      try {
        const channel = await admin.createConfirmChannel();
        const body = Buffer.alloc(256, 'a');
        for (const queue of queues) {
          await channel.assertQueue(queue, { durable: false, autoDelete: false });
          for (let i = 0; i < backlogEach; i += 1) channel.sendToQueue(queue, body);
        }
        await channel.waitForConfirms();
        const connections: ClientConnection[] = [];
        for (let index = 0; index < consumers; index += 1) {
          const connection = await adapterOf(name).connect('defaults', { urls: [url], connectionName: `amqp-bench.test.${randomUUID()}` });
          opened.push(connection);
          connections.push(connection);
        }
        // Per consumer: how many separate hand-overs (one `delivered` line calls back once per message, in one turn).
        const handOvers = Array.from({ length: consumers }, () => new Set<number>());
        let turn = 0;
        const ticker = setInterval(() => (turn += 1), 1);
        let delivered = 0;
        try {
          await Promise.all(
            connections.map((connection, index) =>
              connection.consume(queues[index]!, { ack: 'manual', prefetch: 100, bodies: false }, (delivery) => {
                delivery.ack();
                delivered += 1;
                handOvers[index]!.add(turn);
              }),
            ),
          );
          expect(await waitUntil(() => delivered >= consumers * backlogEach, 90_000)).toBe(true);
        } finally {
          clearInterval(ticker);
        }
        const fewest = Math.min(...handOvers.map((turns) => turns.size));
        expect(fewest).toBeGreaterThanOrEqual(5);
      } finally {
        await Promise.allSettled(opened.splice(0).map((connection) => connection.close()));
        const cleanup = await admin.createChannel();
        for (const queue of queues) await cleanup.deleteQueue(queue).catch(() => undefined);
        await admin.close().catch(() => undefined);
      }
    },
    150_000,
  );
});

describe('amqp091-go: a confirm that does not settle within the publish bound (real program, embedded proxy)', () => {
  const missingWhy = missing.get('amqp091-go');
  (missingWhy ? it.skip : it)(
    'ends its publish_run at the first publish whose confirm is held past the bound, naming it, and makes no more',
    async () => {
      const entry = await startEmbeddedProxyEntry('go-confirm-bound');
      const admin = await amqp.connect(url);
      const queue = `amqp-bench.test.confirm-bound.${randomUUID()}`;
      let connection: ClientConnection | undefined;
      try {
        const channel = await admin.createChannel();
        await channel.assertQueue(queue, { durable: false, arguments: { 'x-expires': 60_000 } });
        connection = await adapterOf('amqp091-go').connect('defaults', {
          urls: [entry.proxiedUrl],
          connectionName: `amqp-bench.test.${randomUUID()}`,
        });
        const publisher = await connection.publisher({ confirms: true });
        // Everything towards the client held 3 s: each confirm comes, but long after a 500 ms bound.
        await entry.proxy.client.addToxic(entry.proxy.name, {
          type: 'latency',
          name: 'confirms_late',
          stream: 'downstream',
          toxicity: 1,
          attributes: { latency: 3000, jitter: 0 },
        });
        const startedMs = performance.now();
        const run = await publisher.publishRun!('', queue, 5, 16, 10_000, 500);
        const tookMs = performance.now() - startedMs;
        expect({ published: run.published, errors: run.errors, unsettledPublish: run.unsettledPublish }).toEqual({
          published: 0,
          errors: 0,
          unsettledPublish: 1,
        });
        expect(tookMs).toBeGreaterThanOrEqual(500);
        expect(tookMs).toBeLessThan(2500);
        // The one publish went out: no more were made after it.
        await entry.proxy.client.removeToxic(entry.proxy.name, 'confirms_late');
        expect(await waitUntil(async () => (await channel.checkQueue(queue)).messageCount === 1, 10_000)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await channel.checkQueue(queue)).messageCount).toBe(1);
        await channel.deleteQueue(queue);
      } finally {
        await connection?.close().catch(() => undefined);
        await admin.close().catch(() => undefined);
        await entry.close();
      }
    },
    60_000,
  );
});
