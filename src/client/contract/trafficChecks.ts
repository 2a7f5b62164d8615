/**
 * The client doing the work every suite asks of it, straight to the broker: connecting, publishing
 * plain and with confirms, consuming with automatic and manual ack within a prefetch window (on
 * several consumers of one connection), and draining a backlog larger than its prefetch.
 */
import { clientEvidence } from '../../suite-kit/findings';
import { SIGNAL_KINDS, type ClientConnection, type ClientInfo, type Delivery } from '../api';
import { CONNECT_BOUND_MS } from './session';
import { ClientFinding, ContractViolation, formatDuration, needs, type CheckContext, type ContractCheck } from './types';

/** How long a message may take to reach a consumer on a live connection before it is said to be lost. */
export const DELIVERY_BOUND_MS = 5000;
/** How long a confirm may take on a live connection before it is said never to settle (a local broker confirms within milliseconds). */
export const CONFIRM_BOUND_MS = 5000;

/**
 * Waits for a confirmed publish to settle within CONFIRM_BOUND_MS. One that does not is a
 * finding of the client when `reached()` says the broker took the message (the confirm is what
 * never came), and a ContractViolation when it did not (the publish never went out).
 * @throws ClientFinding, ContractViolation, or what the publish rejected with
 */
export async function confirmSettles(
  context: CheckContext,
  publishing: Promise<void>,
  what: string,
  reached: () => Promise<boolean>,
): Promise<void> {
  try {
    await context.within(publishing, CONFIRM_BOUND_MS, what);
  } catch (error) {
    if (!(error instanceof ContractViolation)) throw error;
    if (await reached())
      throw new ClientFinding(
        `${what} never settled within ${formatDuration(CONFIRM_BOUND_MS)}, though the broker took the message: a confirm the client never settled, a finding of the client as every suite reports it (${clientEvidence(context.info)})`,
      );
    throw new ContractViolation(
      `${what} did not settle within ${formatDuration(CONFIRM_BOUND_MS)}, and the message never reached the broker`,
    );
  }
}

/** What the connection's `info` says that the adapter does not (results would record the wrong one). */
function infoDisagreements(connection: ClientInfo, expected: ClientInfo): string[] {
  const found: string[] = [];
  for (const key of ['name', 'profile', 'library', 'recovery', 'multipleHosts'] as const)
    if (connection[key] !== expected[key])
      found.push(`\`info.${key}\` is ${JSON.stringify(connection[key])}, not ${JSON.stringify(expected[key])}`);
  for (const kind of SIGNAL_KINDS)
    if (connection.signals?.[kind] !== expected.signals[kind]) found.push(`\`info.signals.${kind}\` differs from the adapter's`);
  return found;
}

export const connectCheck: ContractCheck = {
  name: 'connect',
  group: 'traffic',
  boundMs: CONNECT_BOUND_MS,
  async run(context) {
    context.step('connecting straight to the broker (adapter.connect)');
    const startedMs = performance.now();
    const connection = await context.connect('direct');
    const tookMs = performance.now() - startedMs;
    if (connection.state !== 'up')
      throw new ContractViolation(`connect() resolved with \`state\` ${JSON.stringify(connection.state)}, not "up"`);
    const wrong = infoDisagreements(connection.info, context.info);
    if (wrong.length > 0)
      throw new ContractViolation(
        `the connection's ${wrong.join('; ')}: give the connection the adapter's own words (results record them)`,
      );
    return `up in ${formatDuration(tookMs)}, its info agrees with the adapter's`;
  },
};

/** Connects straight to the broker for a check that needs it (skipped when connect failed). */
async function connected(context: CheckContext): Promise<ClientConnection> {
  needs(context, 'connect');
  context.step('connecting straight to the broker (adapter.connect)');
  return context.connect('direct');
}

export const publishConsumeCheck: ContractCheck = {
  name: 'publish, consume (auto ack)',
  group: 'traffic',
  boundMs: 20_000,
  async run(context) {
    const connection = await connected(context);
    const queue = await context.broker.declareQueue('amqp-bench.check-adapter.publish');
    const received: string[] = [];
    context.step('consuming with automatic ack (consume)');
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    context.step('opening a plain publisher (publisher({ confirms: false }))');
    const plain = await connection.publisher({ confirms: false });
    context.step('opening a publisher with confirms (publisher({ confirms: true }))');
    const confirmed = await connection.publisher({ confirms: true });
    if (plain.confirms !== false || confirmed.confirms !== true)
      throw new ContractViolation(
        `publisher({ confirms }) gave publishers whose \`confirms\` read ${plain.confirms} and ${confirmed.confirms}, not false and true`,
      );
    context.step('publishing plain, then flush(5 s)');
    await plain.publish('', queue, Buffer.from('plain'));
    await plain.flush(5000);
    context.step(`publishing with confirms (persistent), its confirm awaited for ${formatDuration(CONFIRM_BOUND_MS)}`);
    await confirmSettles(
      context,
      confirmed.publish('', queue, Buffer.from('confirmed'), { persistent: true }),
      'a publish with confirms',
      () => context.waitUntil(() => received.includes('confirmed'), DELIVERY_BOUND_MS),
    );
    context.step('waiting for both deliveries');
    if (!(await context.waitUntil(() => received.length >= 2, DELIVERY_BOUND_MS))) {
      const { ready } = await context.broker.inspect(queue);
      throw new ContractViolation(
        `of two messages published (plain, then with confirms), the consumer received ${received.length} within ${formatDuration(DELIVERY_BOUND_MS)} (${ready} still ready in the queue)`,
      );
    }
    if ([...received].sort().join() !== 'confirmed,plain')
      throw new ContractViolation(
        `the consumer received ${JSON.stringify(received)}, not the two messages published ("plain", "confirmed")`,
      );
    return 'a plain and a confirmed publish, both delivered';
  },
};

/** Two consumers with prefetch 2: four unacked deliveries, then nothing more until acks. */
const CONSUMERS = 2;
const PREFETCH = 2;
const MESSAGES = 10;

export const manualAckCheck: ContractCheck = {
  name: 'consume (manual ack, prefetch)',
  group: 'traffic',
  boundMs: 20_000,
  async run(context) {
    const connection = await connected(context);
    const queue = await context.broker.declareQueue('amqp-bench.check-adapter.prefetch');
    const pending: Delivery[] = [];
    let deliveries = 0;
    // A library with one subscription per queue per connection is checked with the one it can have.
    const consumers = context.adapter.consumersPerQueue === 'one' ? 1 : CONSUMERS;
    context.step(`consuming with manual ack, prefetch ${PREFETCH}, on ${consumers} consumer(s)`);
    for (let consumer = 0; consumer < consumers; consumer += 1)
      await connection.consume(queue, { ack: 'manual', prefetch: PREFETCH }, (delivery) => {
        deliveries += 1;
        pending.push(delivery);
      });
    await context.broker.send(queue, ...Array.from({ length: MESSAGES }, (_, n) => `m${n}`));
    const window = consumers * PREFETCH;
    context.step(`waiting for ${window} deliveries`);
    if (!(await context.waitUntil(() => deliveries >= window, DELIVERY_BOUND_MS)))
      throw new ContractViolation(
        `${consumers} consumer(s) with prefetch ${PREFETCH} received ${deliveries} of ${MESSAGES} messages within ${formatDuration(DELIVERY_BOUND_MS)}, not ${window}`,
      );
    // Nothing more may come while those are unacked.
    await context.sleep(200);
    if (deliveries > window)
      throw new ContractViolation(
        `${consumers} consumer(s) with prefetch ${PREFETCH} got ${deliveries} deliveries before any ack, not ${window}: the adapter does not set the prefetch (basic.qos) per consumer`,
      );
    context.step(`acking each delivery until all ${MESSAGES} came`);
    let acked = 0;
    const ackedAll = await context.waitUntil(() => {
      for (let next = pending.shift(); next; next = pending.shift()) {
        next.ack();
        acked += 1;
      }
      return acked >= MESSAGES;
    }, DELIVERY_BOUND_MS);
    if (!ackedAll)
      throw new ContractViolation(
        `acking each delivery at once, ${acked} of ${MESSAGES} came within ${formatDuration(DELIVERY_BOUND_MS)}: Delivery.ack() does not reach the broker (the prefetch window never reopens)`,
      );
    const { ready } = await context.broker.inspect(queue);
    if (ready !== 0) throw new ContractViolation(`after ${MESSAGES} deliveries acked, the broker still holds ${ready} ready`);
    const one = consumers === 1 ? ' (one consumer: the adapter says its library has one subscription per queue per connection)' : '';
    return `${window} unacked at most, then all ${MESSAGES} acked${one}`;
  },
};

const BACKLOG = 200;
const BACKLOG_PREFETCH = 20;
const BACKLOG_BOUND_MS = 10_000;

// A consumer that (re)starts on a backlog gets a prefetch window of deliveries at once, in the same
// socket read as its consume-ok: acking them must work too, or it stalls with its connection up
// (what a failover does to every consumer that moves to a busy node).
export const backlogCheck: ContractCheck = {
  name: 'consume (backlog)',
  group: 'traffic',
  boundMs: 25_000,
  async run(context) {
    const connection = await connected(context);
    const queue = await context.broker.declareQueue('amqp-bench.check-adapter.backlog');
    context.step(`putting a backlog of ${BACKLOG} messages in the queue`);
    await context.broker.send(queue, ...Array.from({ length: BACKLOG }, (_, n) => `backlog-${n}`));
    let received = 0;
    context.step(`consuming the backlog with manual ack, prefetch ${BACKLOG_PREFETCH}, acking each`);
    await connection.consume(queue, { ack: 'manual', prefetch: BACKLOG_PREFETCH }, (delivery) => {
      received += 1;
      delivery.ack();
    });
    if (!(await context.waitUntil(() => received >= BACKLOG, BACKLOG_BOUND_MS)))
      throw new ContractViolation(
        `of a backlog of ${BACKLOG} with prefetch ${BACKLOG_PREFETCH}, acking each as it came, the consumer received ${received} within ${formatDuration(BACKLOG_BOUND_MS)}: ${
          received <= BACKLOG_PREFETCH
            ? 'the acks of the deliveries that arrive with consume-ok are lost (the consumer stalls with its connection up)'
            : 'it stalled'
        }`,
      );
    return `a backlog of ${BACKLOG} drained with prefetch ${BACKLOG_PREFETCH}`;
  },
};
