/**
 * Traffic that keeps every consumer's connection busy: one publish to a fanout exchange every
 * `intervalMs`, over a direct connection (not through the proxy, so the fault never hits the
 * source). A fanout reaches every thread at about the same moment, so a reset_peer toxic, which
 * acts on the next data, fires on all connections together.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';

export interface TrafficSource {
  readonly exchange: string;
  /** Publishes one message now, outside the schedule (e.g. right after a fault is injected). */
  pulse(): void;
  published(): number;
  stop(): Promise<void>;
}

/** `queuesToDelete`: the consumers' named queues, deleted when the traffic stops. */
export async function startFanoutTraffic(
  directUrl: string,
  exchange: string,
  intervalMs: number,
  queuesToDelete: readonly string[] = [],
): Promise<TrafficSource> {
  const connection: ChannelModel = await amqp.connect(directUrl, { timeout: 5000, noDelay: true });
  connection.on('error', () => undefined);
  const channel: Channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'fanout', { durable: false, autoDelete: false });
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
        for (const queue of queuesToDelete) await channel.deleteQueue(queue).catch(() => undefined);
        await channel.deleteExchange(exchange).catch(() => undefined);
        await connection.close().catch(() => undefined);
      })();
      return stopped;
    },
  };
}
