/**
 * amqp091-go's confirmed publishes through the protocol (`publish` with confirms, what the fault
 * matrix, realistic and recovery suites send), against the real broker: each is settled by the
 * broker's word or by its channel's close, never left waiting. The Go program tracks them through
 * Channel.NotifyPublish (adapters/go/amqp091_confirms.go): amqp091-go 1.5.0's deferred API drops
 * an ack that comes back before the publish was registered (rabbitmq/amqp091-go#182), about 1 in
 * 60 publishes at one every few milliseconds over loopback, and that publish then never settles.
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { adapterOf, unavailableClients } from '../../src/client/registry';
import type { ClientConnection } from '../../src/client/api';
import { ClientFaultError } from '../../src/client/types';
import { getConfig } from '../../src/config';

const url = getConfig().amqpUrl;
const missingWhy = unavailableClients().find(({ name }) => name === 'amqp091-go')?.why;
const run = missingWhy ? it.skip : it;
/** Publishes of the first case, one every ~2 ms: with #182, some tens of them would never settle. */
const PUBLISHES = 1500;

async function waitUntil(predicate: () => boolean, boundMs: number): Promise<boolean> {
  const until = performance.now() + boundMs;
  while (performance.now() < until && !predicate()) await new Promise((resolve) => setTimeout(resolve, 20));
  return predicate();
}

/** Each publish's outcome as it settles: 'confirmed', or the error it was rejected with. */
function settleInto(outcomes: (string | Error | undefined)[], index: number, publish: Promise<void>): void {
  publish.then(
    () => (outcomes[index] = 'confirmed'),
    (error: unknown) => (outcomes[index] = error instanceof Error ? error : new Error(String(error))),
  );
}

describe('amqp091-go: every confirmed publish through the protocol settles (real broker)', () => {
  if (missingWhy) it(`is skipped here: ${missingWhy}`, () => expect(missingWhy).toMatch(/setup-clients/));
  let admin: Awaited<ReturnType<typeof amqp.connect>> | undefined;
  let connection: ClientConnection | undefined;
  const queue = `amqp-bench.test.go-confirms.${randomUUID()}`;

  afterEach(async () => {
    await connection?.close().catch(() => undefined);
    connection = undefined;
    if (admin) {
      const cleanup = await admin.createChannel();
      await cleanup.deleteQueue(queue).catch(() => undefined);
      await admin.close().catch(() => undefined);
      admin = undefined;
    }
  });

  run(
    `with the broker up: ${PUBLISHES} publishes, one every ~2 ms, each confirmed, and the queue holds them all`,
    async () => {
      admin = await amqp.connect(url);
      await (await admin.createChannel()).assertQueue(queue, { durable: false });
      connection = await adapterOf('amqp091-go').connect('defaults', { urls: [url], connectionName: `amqp-bench.test.${randomUUID()}` });
      const publisher = await connection.publisher({ confirms: true });
      const outcomes: (string | Error | undefined)[] = new Array(PUBLISHES).fill(undefined);
      const body = Buffer.alloc(256, 'a');
      for (let index = 0; index < PUBLISHES; index += 1) {
        settleInto(outcomes, index, publisher.publish('', queue, body));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await waitUntil(() => outcomes.every((outcome) => outcome !== undefined), 15_000);
      const pending = outcomes.flatMap((outcome, index) => (outcome === undefined ? [index + 1] : []));
      const failed = outcomes.filter((outcome) => outcome instanceof Error).map((error) => String(error));
      expect({ pending, failed }).toEqual({ pending: [], failed: [] });
      expect(outcomes.filter((outcome) => outcome === 'confirmed')).toHaveLength(PUBLISHES);
      const check = await admin.createChannel();
      expect((await check.checkQueue(queue)).messageCount).toBe(PUBLISHES);
    },
    60_000,
  );

  run(
    'a channel the broker closes (a publish to an exchange that does not exist) settles every publish still outstanding as rejected',
    async () => {
      admin = await amqp.connect(url);
      await (await admin.createChannel()).assertQueue(queue, { durable: false });
      connection = await adapterOf('amqp091-go').connect('defaults', { urls: [url], connectionName: `amqp-bench.test.${randomUUID()}` });
      const publisher = await connection.publisher({ confirms: true });
      const body = Buffer.from('outstanding');
      const outcomes: (string | Error | undefined)[] = new Array(21).fill(undefined);
      // The bad publish first, then twenty more sent before the broker's channel.close can come
      // back: none of them is ever confirmed, each is settled by the close.
      settleInto(outcomes, 0, publisher.publish(`amqp-bench.test.missing.${randomUUID()}`, 'any', body));
      for (let index = 1; index < outcomes.length; index += 1) settleInto(outcomes, index, publisher.publish('', queue, body));
      await waitUntil(() => outcomes.every((outcome) => outcome !== undefined), 10_000);
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(0);
      expect(outcomes.filter((outcome) => outcome === 'confirmed')).toHaveLength(0);
      // The bad publish was outstanding when the close came: rejected with the broker's reason.
      const first = outcomes[0];
      expect(first).toBeInstanceOf(ClientFaultError);
      expect((first as ClientFaultError).kind).toBe('channel_closed');
      expect((first as ClientFaultError).message).toMatch(/404.*NOT_FOUND/);
      // The rest: outstanding at the close (the same), or written after it (the library's "not open").
      for (const outcome of outcomes.slice(1)) expect(outcome).toBeInstanceOf(ClientFaultError);
      const check = await admin.createChannel();
      expect((await check.checkQueue(queue)).messageCount).toBe(0);
    },
    30_000,
  );
});
