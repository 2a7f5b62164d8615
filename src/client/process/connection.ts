/**
 * One connection of a client program (any language): the harness's ClientConnection over the
 * line protocol, one program per connection. The program times every fault and signal in its own
 * process (CLOCK_MONOTONIC, the same clock as process.hrtime.bigint() on this machine), so a
 * detection time is the library's, not the pipe's. A program that dies or breaks the protocol
 * takes its connection down for good: the fault says what it did, ensureConnected fails with it.
 */
import { TimeoutError } from '../../errors';
import type { ClientInfo, ClientProfile, ConnectOptions, ConsumeOptions, Consumer, Delivery, EnsureResult, Publisher } from '../api';
import { NORMALISED_SETTINGS } from '../api';
import { ConnectionBase } from '../connectionBase';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../types';
import type { Event } from '../../schemaTypes/clientProtocol';
import { ANSWER_GRACE_MS, COMMAND_BOUND_MS, ProgramConsumer, ask, programPublisher } from './handles';
import { ProgramLink } from './link';
import { RECOVER_SINCE, nsOf } from './wire';

/**
 * A recovery made and timed inside the program (`recover`, protocol 2): every time read in the
 * program's own process, from the moment its recovering thread took the command up to the moment
 * its library handed the probe's delivery over.
 */
export interface ProgramRecovery {
  readonly attempts: number;
  readonly recoveryStartedNs: bigint;
  readonly connectedNs: bigint;
  readonly recoveredNs: bigint;
}

/** Bound on the program's polite close (its library's close, then cutting the socket). */
const CLOSE_BOUND_MS = 5000;

/** The harness loop's backoff of a profile: the same as the amqplib control's (src/client/amqplib/manual.ts). */
export function harnessBackoff(profile: ClientProfile): BackoffOptions {
  return profile === 'normalised'
    ? { ...DEFAULT_BACKOFF, initialDelayMs: NORMALISED_SETTINGS.firstRetryDelayMs, maxDelayMs: NORMALISED_SETTINGS.maxRetryDelayMs }
    : DEFAULT_BACKOFF;
}

export class ProgramConnection extends ConnectionBase {
  private port: number | undefined;
  private handles = 0;
  private readonly consumers = new Map<number, ProgramConsumer>();
  /** The consumer handle of each queue consumed (the latest), and the open publishers without confirms: what `recover` names. */
  private readonly consumerOfQueue = new Map<string, number>();
  private readonly plainPublishers = new Set<number>();
  private link: ProgramLink | undefined;
  private closing: Promise<void> | undefined;

  private constructor(readonly info: ClientInfo) {
    super();
  }

  /** Starts the program and connects it (the first connection, within `startBoundMs`). */
  static async open(command: readonly string[], info: ClientInfo, options: ConnectOptions): Promise<ProgramConnection> {
    const connection = new ProgramConnection(info);
    const startBoundMs = options.startBoundMs ?? 10_000;
    const link = await ProgramLink.start(`${info.name} (${command.join(' ')})`, command, {
      onEvent: (event) => connection.onEvent(event),
      onEnd: (error) => connection.onEnd(error),
    });
    connection.link = link;
    try {
      const reply = await ask(link, (it) =>
        it.request(
          {
            op: 'connect',
            profile: info.profile,
            urls: [...options.urls] as [string, ...string[]],
            ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
            startBoundMs,
            harnessBackoff: harnessBackoff(info.profile),
          },
          startBoundMs + ANSWER_GRACE_MS,
        ),
      );
      connection.port = reply.localPort ?? undefined;
    } catch (error) {
      await link.stop(1000);
      throw error;
    }
    return connection;
  }

  get localPort(): number | undefined {
    return this.port;
  }

  /** The running program's pid (tests look for what it left behind). */
  get pid(): number | undefined {
    return this.link?.pid;
  }

  /** The program's own reading of CLOCK_MONOTONIC (the adapter contract compares it with the harness's). */
  async readClockNs(): Promise<bigint> {
    const reply = await ask(this.live(), (it) => it.request({ op: 'clock' }, COMMAND_BOUND_MS));
    if (reply.nowNs === undefined) throw new TimeoutError(`${this.info.name} answered clock without nowNs`);
    return nsOf(reply.nowNs);
  }

  async publisher(options: { readonly confirms: boolean }): Promise<Publisher> {
    const link = this.live();
    const handle = ++this.handles;
    await ask(link, (it) => it.request({ op: 'publisher', publisher: handle, confirms: options.confirms }, COMMAND_BOUND_MS));
    const publisher = programPublisher(link, handle, options.confirms);
    if (options.confirms) return publisher;
    this.plainPublishers.add(handle);
    return {
      ...publisher,
      close: async () => {
        this.plainPublishers.delete(handle);
        await publisher.close();
      },
    };
  }

  async consume(queue: string, options: ConsumeOptions, onDelivery: (delivery: Delivery) => void): Promise<Consumer> {
    const link = this.live();
    const handle = ++this.handles;
    const consumer = new ProgramConsumer(link, handle, onDelivery, options.ack === 'manual');
    // Registered first: deliveries may come before the reply.
    this.consumers.set(handle, consumer);
    try {
      await ask(link, (it) =>
        it.request(
          { op: 'consume', consumer: handle, queue, ack: options.ack, prefetch: options.prefetch ?? 0, bodies: options.bodies !== false },
          COMMAND_BOUND_MS,
        ),
      );
    } catch (error) {
      this.consumers.delete(handle);
      throw error;
    }
    this.consumerOfQueue.set(queue, handle);
    return consumer;
  }

  /** True when the program makes and times the recovery round trip itself (`recover`). */
  get recoversInProgram(): boolean {
    return (this.link?.protocol ?? 0) >= RECOVER_SINCE;
  }

  /**
   * The connection back (as ensureConnected) and a probe through `queue`'s consumer, made and timed
   * by the program (`recover`): what the harness's recovery thread does over the pipe for a
   * program without it, with none of the pipe's hops in the times. Uses a publisher without
   * confirms opened before (one is opened now when there is none).
   * @throws TimeoutError when the program does not speak `recover` (see recoversInProgram) or no consumer consumes `queue`
   */
  async recoverWithProbe(queue: string, deadlineMs: number, roundTripBoundMs: number): Promise<ProgramRecovery> {
    const link = this.live();
    if (!this.recoversInProgram) throw new TimeoutError(`${this.info.name} speaks protocol ${link.protocol}, without recover`);
    const consumer = this.consumerOfQueue.get(queue);
    if (consumer === undefined) throw new TimeoutError(`${this.info.name} has no consumer of ${queue} to prove its recovery with`);
    if (this.plainPublishers.size === 0) await this.publisher({ confirms: false });
    const publisher = Math.min(...this.plainPublishers);
    const bound = (ms: number) => Math.max(1, Math.round(ms));
    const reply = await ask(link, (it) =>
      it.request(
        { op: 'recover', consumer, publisher, deadlineMs: bound(deadlineMs), roundTripBoundMs: bound(roundTripBoundMs) },
        deadlineMs + roundTripBoundMs + ANSWER_GRACE_MS,
      ),
    );
    const { recoveryStartedNs, connectedNs, recoveredNs } = reply;
    if (recoveryStartedNs === undefined || connectedNs === undefined || recoveredNs === undefined)
      throw new TimeoutError(`${this.info.name} answered recover without recoveryStartedNs, connectedNs and recoveredNs`);
    this.reportBack();
    return {
      attempts: reply.attempts ?? 0,
      recoveryStartedNs: nsOf(recoveryStartedNs),
      connectedNs: nsOf(connectedNs),
      recoveredNs: nsOf(recoveredNs),
    };
  }

  override async ensureConnected(deadlineMs: number): Promise<EnsureResult> {
    const link = this.link;
    if (!link || link.endedWith) throw link?.endedWith ?? new TimeoutError(`${this.info.name} is not connected`);
    const reply = await ask(link, (it) =>
      it.request({ op: 'ensure', deadlineMs: Math.max(1, Math.round(deadlineMs)) }, deadlineMs + ANSWER_GRACE_MS),
    );
    this.reportBack();
    return { attempts: reply.attempts ?? 0, connectedNs: reply.connectedNs === undefined ? 0n : nsOf(reply.connectedNs) };
  }

  destroy(reason: string): void {
    const link = this.link;
    if (!link || link.endedWith) return;
    void link.request({ op: 'destroy', reason }, COMMAND_BOUND_MS).catch(() => undefined);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const link = this.link;
      this.markClosed();
      if (!link || link.endedWith) return;
      const reply = await link.request({ op: 'close', boundMs: CLOSE_BOUND_MS }, CLOSE_BOUND_MS + ANSWER_GRACE_MS).catch(() => undefined);
      if (reply?.hitBound === true) this.noteCloseBoundHit();
      // It exits after its reply; one that does not is ended with its group.
      await link.stop(2000);
    })();
    return this.closing;
  }

  private live(): ProgramLink {
    const link = this.link;
    if (!link || link.endedWith) throw link?.endedWith ?? new TimeoutError(`${this.info.name} is not connected`);
    return link;
  }

  private onEvent(event: Event): void {
    switch (event.ev) {
      case 'fault':
        this.reportFault(new Error(event.message), event.kind, nsOf(event.atNs));
        return;
      case 'recovered':
        if (event.localPort !== undefined) this.port = event.localPort ?? undefined;
        this.attemptsSinceFault = event.attempts;
        this.reportBack();
        return;
      case 'signal':
        this.reportSignal(event.kind, new Error(event.message), nsOf(event.atNs));
        return;
      case 'deliveries':
      case 'delivered':
        this.consumers.get(event.consumer)?.deliver(event);
    }
  }

  /** The program is gone: stopped by close(), or ended (it misbehaved): a fault that no recovery undoes. */
  private onEnd(error: Error | undefined): void {
    if (error && this.current === 'up') this.reportFault(error, 'error');
    if (this.current !== 'closed') this.markClosed();
  }
}
