/**
 * The publishers and consumers of a client program, as the harness's interface sees them: each a
 * handle the harness numbers, every call one command of the protocol. Acks of one event-loop turn
 * travel together (one line per consumer), and a consumer that only needs counts (`bodies:
 * false`) gets counts from the program, never one line per message.
 */
import type { Consumer, Delivery, Publisher, PublishOptions, PublishRunOutcome } from '../api';
import { PublishNackedError, ClientFaultError } from '../types';
import { TimeoutError } from '../../errors';
import { nowNs } from '../../measure/clock';
import type { Event } from '../../schemaTypes/clientProtocol';
import { ProgramFailure, type ProgramLink } from './link';
import { nsOf } from './wire';
import { processRssBytes } from './processRss';

/** Bound on a command with no bound of its own (open a channel, consume, cancel). */
export const COMMAND_BOUND_MS = 30_000;
/** A publish neither done nor failed after this long: the program is hung (its library bounds its own waits far below). */
export const PUBLISH_BOUND_MS = 120_000;
/** Added to a command's own bound before the program counts as not answering. */
export const ANSWER_GRACE_MS = 5000;

/** The program's failure as the error the harness's interface promises (a fault, a nack, a timeout). */
export function asClientError(error: unknown): unknown {
  if (!(error instanceof ProgramFailure)) return error;
  const { failure } = error;
  const atNs = failure.atNs === undefined ? nowNs() : nsOf(failure.atNs);
  if (failure.code === 'nacked') return new PublishNackedError(failure.error, atNs);
  if (failure.code === 'fault') return new ClientFaultError(failure.error, atNs, failure.kind ?? 'error');
  if (failure.code === 'timeout') return new TimeoutError(failure.error);
  return error;
}

/** `link.request`, with the program's failure turned into the interface's error. */
export async function ask<T>(link: ProgramLink, run: (link: ProgramLink) => Promise<T>): Promise<T> {
  try {
    return await run(link);
  } catch (error) {
    throw asClientError(error);
  }
}

export function programPublisher(link: ProgramLink, handle: number, confirms: boolean): Publisher {
  return {
    confirms,
    libraryProcessRssBytes: () => processRssBytes(link.pid),
    async publish(exchange: string, routingKey: string, body: Buffer, options?: PublishOptions) {
      await ask(link, (it) =>
        it.request(
          {
            op: 'publish',
            publisher: handle,
            exchange,
            routingKey,
            body: body.toString('base64'),
            persistent: options?.persistent === true,
          },
          PUBLISH_BOUND_MS,
        ),
      );
    },
    async flush(boundMs: number) {
      await ask(link, (it) =>
        it.request({ op: 'flush', publisher: handle, boundMs: Math.max(1, Math.round(boundMs)) }, boundMs + ANSWER_GRACE_MS),
      );
    },
    async publishRun(exchange, routingKey, count, sizeBytes, boundMs, publishBoundMs): Promise<PublishRunOutcome> {
      const bound = (ms: number) => Math.max(1, Math.round(ms));
      const reply = await ask(link, (it) =>
        it.request(
          {
            op: 'publish_run',
            publisher: handle,
            exchange,
            routingKey,
            count,
            sizeBytes,
            boundMs: bound(boundMs),
            ...(publishBoundMs === undefined ? {} : { publishBoundMs: bound(publishBoundMs) }),
          },
          boundMs + ANSWER_GRACE_MS,
        ),
      );
      const run = reply.run;
      if (!run) throw new TimeoutError(`${link.name} answered publish_run without its run`);
      return {
        published: run.published,
        errors: run.errors,
        startedNs: nsOf(run.startedNs),
        completedNs: nsOf(run.completedNs),
        latencyUs: run.latencyUs,
        errorSamples: run.errorSamples,
        ...(run.unsettledPublish === undefined ? {} : { unsettledPublish: run.unsettledPublish }),
      };
    },
    async close() {
      await ask(link, (it) => it.request({ op: 'close_publisher', publisher: handle }, COMMAND_BOUND_MS)).catch(() => undefined);
    },
  };
}

/** One consumer's side of the deliveries: turns the program's events into `onDelivery` calls. */
export class ProgramConsumer implements Consumer {
  private acks: number[] = [];
  private flushing = false;
  private cancelled = false;

  constructor(
    private readonly link: ProgramLink,
    readonly handle: number,
    private readonly onDelivery: (delivery: Delivery) => void,
    private readonly manual: boolean,
  ) {}

  /** Hands a `deliveries` or `delivered` event of this consumer to the harness. */
  deliver(event: Extract<Event, { ev: 'deliveries' | 'delivered' }>): void {
    if (this.cancelled) return;
    if (event.ev === 'delivered') {
      // Counted and acked in the program: the deliveries carry nothing to read or ack.
      const counted: Delivery = { body: EMPTY, redelivered: false, ack: () => undefined };
      for (let i = 0; i < event.count; i += 1) this.onDelivery(counted);
      return;
    }
    for (const message of event.messages) {
      const tag = message.tag;
      this.onDelivery({
        body: Buffer.from(message.body, 'base64'),
        redelivered: message.redelivered,
        ...(message.atNs === undefined ? {} : { receivedNs: nsOf(message.atNs) }),
        ack: () => this.queueAck(tag),
        ackUpTo: () => this.sendNow({ op: 'ack', consumer: this.handle, tags: [tag], multiple: true }),
        nack: (requeue: boolean) => this.sendNow({ op: 'nack', consumer: this.handle, tags: [tag], requeue }),
      });
    }
  }

  async cancel(): Promise<void> {
    if (this.cancelled) return;
    this.flushAcks();
    this.cancelled = true;
    await ask(this.link, (it) => it.request({ op: 'cancel', consumer: this.handle }, COMMAND_BOUND_MS)).catch(() => undefined);
  }

  private queueAck(tag: number): void {
    if (!this.manual || this.cancelled) return;
    this.acks.push(tag);
    if (this.flushing) return;
    this.flushing = true;
    // Every ack of this turn of the event loop in one line.
    setImmediate(() => this.flushAcks());
  }

  private flushAcks(): void {
    this.flushing = false;
    if (this.acks.length === 0) return;
    const tags = this.acks;
    this.acks = [];
    this.link.notify({ op: 'ack', consumer: this.handle, tags });
  }

  /** A multiple ack or a nack goes after every single ack queued before it. */
  private sendNow(notice: Parameters<ProgramLink['notify']>[0]): void {
    if (!this.manual || this.cancelled) return;
    this.flushAcks();
    this.link.notify(notice);
  }
}

const EMPTY = Buffer.alloc(0);
