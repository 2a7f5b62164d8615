/**
 * Traffic that keeps every consumer's connection busy: one publish to a fanout exchange every
 * `intervalMs`, over a direct connection (not through the proxy, so the fault never hits the
 * source). A fanout reaches every thread at about the same moment, so a reset_peer toxic, which
 * acts on the next data, fires on all connections together.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { range } from './consumers';

export interface TrafficSource {
  readonly exchange: string;
  /** Publishes one message now, outside the schedule (e.g. right after a fault is injected). */
  pulse(): void;
  published(): number;
  stop(): Promise<void>;
}

/**
 * Channels the queues are declared, bound and deleted over. A channel carries one RPC at a time,
 * so on one channel 50 queues took ~80 ms to declare and bind and ~45 ms to delete; over 8
 * channels ~40 ms and ~25 ms (the broker works on several at once). Set-up and teardown only:
 * the same queues, bindings and arguments, declared before any consumer thread connects and
 * deleted after every thread stopped, as before.
 */
const SETUP_LANES = 8;

/** Runs `each` for every queue, queue i on lane i mod lanes, each lane's queues one after the other. */
async function overLanes(lanes: readonly Channel[], queues: readonly string[], each: (lane: Channel, queue: string) => Promise<unknown>) {
  await Promise.all(
    lanes.map(async (lane, index) => {
      for (let queue = index; queue < queues.length; queue += lanes.length) await each(lane, queues[queue]!);
    }),
  );
}

/**
 * `queues`: the consumers' named queues, declared here (the harness's, not the client's: the
 * client under test only consumes) and bound to the fanout; they outlive a consumer's
 * connection (so a reset never makes the broker delete 50 queues mid-fault) and are deleted
 * when the traffic stops (or expire a minute after their last use, should the harness die).
 */
export async function startFanoutTraffic(
  directUrl: string,
  exchange: string,
  intervalMs: number,
  queues: readonly string[] = [],
): Promise<TrafficSource> {
  const connection: ChannelModel = await amqp.connect(directUrl, { timeout: 5000, noDelay: true });
  connection.on('error', () => undefined);
  let channel: Channel;
  let lanes: Channel[];
  try {
    channel = await connection.createChannel();
    lanes = [
      channel,
      ...(await Promise.all(range(Math.max(0, Math.min(SETUP_LANES, queues.length) - 1)).map(() => connection.createChannel()))),
    ];
    await channel.assertExchange(exchange, 'fanout', { durable: false, autoDelete: false });
    await overLanes(lanes, queues, async (lane, queue) => {
      await lane.assertQueue(queue, { exclusive: false, autoDelete: false, durable: false, arguments: { 'x-expires': 60_000 } });
      await lane.bindQueue(queue, exchange, '');
    });
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
  let sequence = 0;
  const publish = () => {
    sequence += 1;
    channel.publish(exchange, '', Buffer.from(`tick-${sequence}`));
  };
  const timer = setInterval(publish, intervalMs);
  let stopped: Promise<void> | undefined;
  return {
    exchange,
    pulse: publish,
    published: () => sequence,
    stop: () => {
      stopped ??= (async () => {
        clearInterval(timer);
        await overLanes(lanes, queues, (lane, queue) => lane.deleteQueue(queue).catch(() => undefined));
        await channel.deleteExchange(exchange).catch(() => undefined);
        await connection.close().catch(() => undefined);
      })();
      return stopped;
    },
  };
}
