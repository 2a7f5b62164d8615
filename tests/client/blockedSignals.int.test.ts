/**
 * connection.blocked / connection.unblocked as each library tells them, through its adapter,
 * in both profiles. The shared broker is never alarmed (no alarm, no watermark): a relay in
 * front of it writes the two frames into what the client receives (channel 0, class 10, methods
 * 60 with a shortstr reason and 61), between the broker's own frames. The broker itself is not
 * blocked, so a publish made while the client was told "blocked" shows whether the library holds
 * publishes back by itself.
 */
import type { ClientConnection, ClientName, ClientProfile } from '../../src/client/api';
import { connectClient } from '../../src/client/registry';
import { getConfig } from '../../src/config';
import { elapsedMs, nowNs } from '../../src/measure/clock';
import { connectionBlockedFrame, connectionUnblockedFrame, startAmqpRelay, type AmqpRelay } from './support/amqpRelay';
import { BrokerObjects, eventually, recordOf } from './support/signals';

const directUrl = getConfig().amqpUrl;
const cases: [string, ClientName, ClientProfile][] = (['amqplib', 'amqplib-recovery', 'amqp-connection-manager'] as const).flatMap((name) =>
  (['defaults', 'normalised'] as const).map((profile): [string, ClientName, ClientProfile] => [`${name} (${profile})`, name, profile]),
);
const REASON = 'low on memory (injected by the test relay; the broker is not alarmed)';

describe.each(cases)('%s: connection.blocked / unblocked (injected by a relay)', (_label, name, profile) => {
  let broker: BrokerObjects;
  let relay: AmqpRelay | undefined;
  let connection: ClientConnection | undefined;

  beforeAll(async () => {
    broker = await BrokerObjects.open(directUrl, 'test.signals.blocked');
  });
  beforeEach(() => broker.fresh());
  afterEach(async () => {
    await connection?.close();
    await relay?.close();
    connection = undefined;
    relay = undefined;
    await broker.cleanUp();
  });
  afterAll(() => broker.close());

  it("reports blocked with the broker's reason, then unblocked, timed in the library's event, the connection staying up", async () => {
    relay = await startAmqpRelay(directUrl);
    connection = await connectClient({ name, profile }, { urls: [relay.url], startBoundMs: 10_000 });
    const { signals, faults } = recordOf(connection);
    const publisher = await connection.publisher({ confirms: true });
    expect(relay.connections).toBe(1);

    const blockedNs = nowNs();
    relay.inject(connectionBlockedFrame(REASON));
    await eventually(() => signals.length === 1, 5000, 'the blocked signal');
    expect(signals[0]!.kind).toBe('blocked');
    expect(signals[0]!.message).toBe(REASON);
    expect(signals[0]!.detectedNs).toBeGreaterThan(blockedNs);
    expect(elapsedMs(blockedNs, signals[0]!.detectedNs)).toBeLessThan(1000);

    // Neither amqplib nor amqp-connection-manager holds a publish back when told "blocked": it is sent (and, the
    // broker not being blocked at all, confirmed). Against a really blocked broker it would wait for the broker.
    await publisher.publish('', broker.queue, Buffer.from('sent while the client was told blocked'));
    expect((await broker.queueState()).messageCount).toBe(1);

    const unblockedNs = nowNs();
    relay.inject(connectionUnblockedFrame());
    await eventually(() => signals.length === 2, 5000, 'the unblocked signal');
    expect(signals[1]!.kind).toBe('unblocked');
    expect(signals[1]!.message).toBe('unblocked');
    expect(signals[1]!.detectedNs).toBeGreaterThan(unblockedNs);
    expect(elapsedMs(unblockedNs, signals[1]!.detectedNs)).toBeLessThan(1000);

    expect(faults).toEqual([]);
    expect(connection.state).toBe('up');
  }, 30_000);
});
