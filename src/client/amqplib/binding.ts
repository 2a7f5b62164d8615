/**
 * What an amqplib publisher or consumer (a "binding": one channel of the current connection)
 * and the connection that owns it tell each other, shared by both amqplib adapters: the
 * connection's outage, a channel the broker closed or a consumer it cancelled while the
 * connection stays up, and the errors a caller gets for each.
 */
import type { ChannelModel } from 'amqplib';
import { nowNs } from '../../measure/clock';
import type { ClientFault } from '../api';
import { classifyFault, faultMessage } from '../faults';
import { amqplibFaultWords } from './library';
import { ClientFaultError, PublishNackedError } from '../types';

/** What the broker did to one binding while its connection stayed up, as amqplib told it. */
export interface ChannelLoss {
  readonly kind: 'channel_closed' | 'consumer_cancelled';
  /** The library's words (channel 'error': `Channel closed by server: 404 (NOT-FOUND) ...`). */
  readonly message: string;
  /** `process.hrtime.bigint()` in the library's event. */
  readonly detectedNs: bigint;
}

/** How a publisher or consumer learns what its connection is doing, and tells it what the broker did. */
export interface ChannelOwner {
  /** The fault of the current outage, or undefined when up. */
  readonly currentFault: ClientFault | undefined;
  /** Publishers and consumers that exist until closed or cancelled. */
  forget(binding: ChannelBinding): void;
  /**
   * The broker closed the binding's channel or cancelled its consumer: called synchronously in
   * amqplib's event; reports the signal and returns it as the binding's loss (the same time).
   */
  lost(binding: ChannelBinding, kind: ChannelLoss['kind'], message: string): ChannelLoss;
}

export interface ChannelBinding {
  /** Opens this binding's channel (a consumer: and consumes) on `model`, replacing a lost one. */
  attach(model: ChannelModel): Promise<void>;
  /** The connection went away: drop the channel (it is dead). */
  detach(): void;
  /** It has a channel (a consumer: a consumer) that the broker has not closed or cancelled. */
  readonly ready: boolean;
  /** What the broker did to it since its last `attach`, if anything. */
  readonly loss: ChannelLoss | undefined;
  /** Names it in messages: `publisher (confirms)`, `consumer of queue "q"`. */
  readonly label: string;
}

/** amqplib's confirm callback error for a basic.nack: its only way to tell a nack apart is this message. */
const NACKED = 'message nacked';

/** The outage's error (the connection is down), or `fallback` as a plain error. */
export function outageError(owner: ChannelOwner, fallback: string): ClientFaultError {
  const outage = owner.currentFault;
  return outage
    ? new ClientFaultError(`not connected: ${outage.message}`, outage.detectedNs, outage.kind)
    : new ClientFaultError(fallback, nowNs(), 'error');
}

/** The error of a binding whose channel the broker closed (or whose consumer it cancelled): the library's words, the signal's time. */
export function lossError(loss: ChannelLoss): ClientFaultError {
  return new ClientFaultError(loss.message, loss.detectedNs, loss.kind);
}

/**
 * What a failed publish (or flush) becomes for the caller, decided once the library has finished
 * telling: the connection's outage first, then a channel the broker closed, then a nack, then
 * the error as amqplib gave it.
 */
export function publishError(owner: ChannelOwner, loss: ChannelLoss | undefined, error: unknown, what: string): Error {
  if (error instanceof ClientFaultError) return error;
  if (owner.currentFault) return outageError(owner, '');
  if (loss) return lossError(loss);
  const message = faultMessage(error);
  if (message === NACKED) return new PublishNackedError(`${what}: the broker nacked it (basic.nack)`, nowNs(), { cause: error });
  return new ClientFaultError(`${what}: ${message}`, nowNs(), classifyFault(error, amqplibFaultWords), { cause: error });
}
