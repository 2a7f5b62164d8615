/**
 * The part of rascal 21's API the adapter uses (the package ships no types): the promise broker
 * (lib/amqp/BrokerAsPromised.js), its publication sessions (lib/amqp/PublicationSession.js) and
 * subscriber sessions (lib/amqp/SubscriberSession.js, forwarded by SubscriberSessionAsPromised.js).
 */
import type { EventEmitter } from 'node:events';
import type { ConsumeMessage } from 'amqplib';

/** `ackOrNack(err?, recovery?, callback)`: no error acks; an error runs the recovery strategies (lib/amqp/Subscription.js:240-253). */
export type AckOrNack = (error: Error | undefined, recovery: unknown, done: (error?: Error) => void) => void;

export interface RascalPublicationSession extends EventEmitter {
  abort(): void;
}

export interface RascalSubscriberSession extends EventEmitter {
  cancel(): Promise<void>;
}

/**
 * What the broker's 'busy' and 'ready' events give (lib/amqp/Vhost.js:259-270, forwarded from
 * the vhost by lib/amqp/tasks/initVhosts.js:17): one channel pool's state.
 */
export interface RascalPoolStats {
  readonly vhost: string;
  /** The pool: plain publications borrow from 'regular', confirmed ones from 'confirm'. */
  readonly mode: 'regular' | 'confirm';
  /** Channel requests waiting in the pool's queue. */
  readonly queue: number;
  readonly max: number;
}

export interface RascalBroker extends EventEmitter {
  publish(name: string, message: Buffer, overrides: Readonly<Record<string, unknown>>): Promise<RascalPublicationSession>;
  subscribe(name: string, overrides: Readonly<Record<string, unknown>>): Promise<RascalSubscriberSession>;
  shutdown(): Promise<void>;
}

export interface RascalModule {
  BrokerAsPromised: { create(config: unknown): Promise<RascalBroker> };
  withDefaultConfig(config: unknown): unknown;
}

/** What a subscriber session's 'message' event gives. */
export type RascalMessageListener = (message: ConsumeMessage, content: unknown, ackOrNack: AckOrNack) => void;

/** The installed rascal module (loaded here, only when a rascal client is asked for). */
export function rascalModule(): RascalModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- rascal ships no types; the interface above is what is used
  return require('rascal') as RascalModule;
}
