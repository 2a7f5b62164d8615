/**
 * The harness's own side of a fault-matrix cell, over a direct connection to the broker (never
 * through the proxy, never the client under test): it declares the cell's exchange and queues,
 * sends the probes that tell a consumer that works from a publisher that does not, reads what is
 * left in each queue at the end, and deletes the topology.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';
import { nowNs, pollUntil } from '../measure/clock';
import { decodeHeader, encodeMessage } from '../suite-kit/message';
import { PROBE_ROUND } from './report';

/** A queue is read to its end, at most this many messages. */
const DRAIN_MAX_MESSAGES = 200_000;
/** The draining consumer stops when nothing came this long (the rest is read by basic.get). */
const DRAIN_IDLE_MS = 1000;
/** Bound on the draining consumer. */
const DRAIN_BOUND_MS = 60_000;

export class CellAdmin {
  /** Probe rounds that reached every queue's exchange (published without an error). */
  probesSent = 0;
  /** Probe publishes that failed (the admin channel died, the exchange gone mid-fault). */
  probeFailures = 0;
  private probeSeq = 0;
  private probing: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly url: string,
    private model: ChannelModel,
    private channel: Channel,
  ) {
    this.watch();
  }

  static async open(url: string): Promise<CellAdmin> {
    const { model, channel } = await CellAdmin.connect(url);
    return new CellAdmin(url, model, channel);
  }

  private static async connect(url: string): Promise<{ model: ChannelModel; channel: Channel }> {
    const model = await amqp.connect(url, { timeout: 5000, noDelay: true });
    model.on('error', () => undefined);
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    return { model, channel };
  }

  private watch(): void {
    this.closed = false;
    this.model.once('close', () => (this.closed = true));
    this.channel.once('close', () => (this.closed = true));
  }

  /**
   * Opens the admin connection again when it is gone (the node it was on restarted); one attempt,
   * bounded by the connect timeout. @returns false when it could not
   */
  async reopenIfClosed(): Promise<boolean> {
    if (!this.closed) return true;
    try {
      await closeBounded(this.model, socketOf(this.model)).catch(() => undefined);
      const { model, channel } = await CellAdmin.connect(this.url);
      this.model = model;
      this.channel = channel;
      this.watch();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The exchange and one queue per thread, bound by the queue's name (kept 10 min at most if the
   * harness dies); `durable`: a durable exchange and quorum queues, which survive a node restart
   * with their messages.
   */
  async declare(exchange: string, queues: readonly string[], durable = false): Promise<void> {
    await this.channel.assertExchange(exchange, 'direct', { durable, autoDelete: false });
    for (const queue of queues) {
      await this.channel.assertQueue(queue, {
        durable,
        autoDelete: false,
        arguments: { 'x-expires': 600_000, ...(durable ? { 'x-queue-type': 'quorum' } : {}) },
      });
      await this.channel.bindQueue(queue, exchange, queue);
    }
  }

  /** One probe to every queue now, then every `intervalMs`, until `stopProbes`. */
  startProbes(exchange: string, queues: readonly string[], intervalMs: number): void {
    this.stopProbes();
    this.probe(exchange, queues);
    this.probing = setInterval(() => this.probe(exchange, queues), intervalMs);
  }

  stopProbes(): void {
    if (this.probing) clearInterval(this.probing);
    this.probing = undefined;
  }

  /**
   * The thread's own messages left in `queue`: sequence number -> copies (probes ignored). What is
   * ready is taken by a consumer without acks (a slow consumer's cell leaves thousands, and one
   * basic.get round trip each took seconds), then basic.get until the queue is empty.
   */
  async drain(queue: string): Promise<Map<number, number>> {
    await this.reopenIfClosed();
    const left = new Map<number, number>();
    const take = (content: Buffer) => {
      const header = decodeHeader(content);
      if (header && header.round !== PROBE_ROUND) left.set(header.seq, (left.get(header.seq) ?? 0) + 1);
    };
    const consumed = await this.consumeReady(queue, take).catch(() => 0);
    for (let taken = consumed; taken < DRAIN_MAX_MESSAGES; taken += 1) {
      const message = await this.channel.get(queue, { noAck: true }).catch(() => false as const);
      if (!message) break;
      take(message.content);
    }
    return left;
  }

  /** The messages ready in `queue` now, through a consumer without acks; stops early when none came for a while. @returns how many */
  private async consumeReady(queue: string, take: (content: Buffer) => void): Promise<number> {
    const ready = Math.min((await this.channel.checkQueue(queue)).messageCount, DRAIN_MAX_MESSAGES);
    if (ready === 0) return 0;
    let taken = 0;
    let lastMs = Date.now();
    let cancelled = false;
    const { consumerTag } = await this.channel.consume(
      queue,
      (message) => {
        if (message === null) cancelled = true;
        else {
          take(message.content);
          taken += 1;
          lastMs = Date.now();
        }
      },
      { noAck: true },
    );
    await pollUntil(() => taken >= ready || cancelled || Date.now() - lastMs > DRAIN_IDLE_MS, DRAIN_BOUND_MS, 5);
    // Deliveries sent before the cancel arrive before its cancel-ok (one channel keeps order): all taken here.
    if (!cancelled) await this.channel.cancel(consumerTag);
    return taken;
  }

  /** Deletes the topology and closes (bounded); never throws. */
  async dispose(exchange: string, queues: readonly string[]): Promise<void> {
    this.stopProbes();
    await this.reopenIfClosed();
    for (const queue of queues) await this.channel.deleteQueue(queue).catch(() => undefined);
    await this.channel.deleteExchange(exchange).catch(() => undefined);
    await closeBounded(this.model, socketOf(this.model));
  }

  private probe(exchange: string, queues: readonly string[]): void {
    const sentNs = nowNs();
    let failed = false;
    for (const queue of queues) {
      try {
        this.channel.publish(
          exchange,
          queue,
          encodeMessage({ round: PROBE_ROUND, seq: this.probeSeq++, sentNs, scheduledNs: sentNs, paced: false }, 64),
        );
      } catch {
        failed = true; // the next tick tries again
      }
    }
    if (failed) this.probeFailures += 1;
    else this.probesSent += 1;
  }
}
