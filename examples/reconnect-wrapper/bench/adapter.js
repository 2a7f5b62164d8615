'use strict';
/**
 * The amqp-bench adapter of src/reconnectingClient.js: it maps the wrapper's own events and
 * settings to the harness's client contract, and adds nothing the wrapper lacks — what the
 * wrapper fails to do shows up in the report as a finding, not something repaired here.
 *
 *   npx amqp-bench check-adapter ./bench/adapter.js         the contract, against the real broker
 *   npx amqp-bench run --quick --clients ./bench/adapter.js  every suite, this client
 */
const fs = require('node:fs');
const path = require('node:path');
const {
  ClientFaultError,
  ConnectionBase,
  NORMALISED_SETTINGS,
  PublishNackedError,
  TimeoutError,
  classifyFault,
  defineAdapter,
  faultMessage,
  nowNs,
} = require('amqp-bench/adapter');
const { ReconnectingClient } = require('../src/reconnectingClient');

const WRAPPER_VERSION = require('../package.json').version;
// amqplib's package.json is not among its exports: read it beside its main file.
const AMQPLIB_VERSION = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('amqplib')), 'package.json'), 'utf8')).version;
/** A polite close waits for the broker's CloseOk; a dead peer never sends one. */
const CLOSE_BOUND_MS = 1000;

/** How the wrapper gives each typed signal (read from src/reconnectingClient.js). */
const SIGNALS = Object.freeze({
  channel_closed: "the wrapper's 'channelError' event (amqplib's channel 'error'); it opens another publish channel by itself",
  consumer_cancelled: "the wrapper's 'consumerCancelled' event (amqplib's null delivery); it does not consume again",
  blocked: "the wrapper's 'blocked' event (amqplib's connection 'blocked')",
  unblocked: "the wrapper's 'unblocked' event",
});

/** The wrapper's options of a profile: its own defaults, or the harness's shared settings. */
function optionsOf(profile) {
  return profile === 'normalised'
    ? { retryDelayMs: NORMALISED_SETTINGS.firstRetryDelayMs, heartbeatSeconds: NORMALISED_SETTINGS.heartbeatSeconds }
    : { retryDelayMs: 1000, heartbeatSeconds: undefined };
}

function settingsOf(profile) {
  const options = optionsOf(profile);
  return { retryDelayMs: options.retryDelayMs, heartbeat: options.heartbeatSeconds ?? 'default' };
}

class WrapperConnection extends ConnectionBase {
  constructor(info, client) {
    super();
    this.info = info;
    this.client = client;
    this.current = 'down';
    // amqplib's connection 'error' is the earliest word of a drop; a clean close comes only as 'disconnected'.
    client.on('error', (error) => this.reportFault(error));
    client.on('disconnected', (error) => this.reportFault(error ?? new Error('connection closed'), error ? undefined : 'closed'));
    client.on('reconnectFailed', () => {
      if (this.outage) this.attemptsSinceFault += 1;
    });
    client.on('connected', () => {
      if (this.outage) this.attemptsSinceFault += 1;
      this.reportBack();
    });
    client.on('channelError', (error) => this.current === 'up' && this.reportSignal('channel_closed', error));
    client.on(
      'consumerCancelled',
      (queue) => this.current === 'up' && this.reportSignal('consumer_cancelled', `consumer of ${queue} cancelled by the broker`),
    );
    client.on('blocked', (reason) => this.current !== 'closed' && this.reportSignal('blocked', reason));
    client.on('unblocked', () => this.current !== 'closed' && this.reportSignal('unblocked', undefined));
  }

  get localPort() {
    return this.client.localPort;
  }

  /** A failed publish, as the harness reads it: the outage's fault, or what the wrapper said. */
  failure(error) {
    if (error && /nack/i.test(faultMessage(error))) return new PublishNackedError(faultMessage(error), nowNs());
    const outage = this.outage;
    return outage
      ? new ClientFaultError(`${faultMessage(error)} (${outage.message})`, outage.detectedNs, outage.kind)
      : new ClientFaultError(faultMessage(error), nowNs(), classifyFault(error));
  }

  async publisher({ confirms }) {
    const client = this.client;
    return {
      confirms,
      publish: (exchange, routingKey, body, options = {}) =>
        (confirms
          ? client.publishConfirmed(exchange, routingKey, body, options)
          : client.publish(exchange, routingKey, body, options)
        ).catch((error) => {
          throw this.failure(error);
        }),
      flush: async (boundMs) => {
        let timer;
        try {
          await Promise.race([
            client.flush(confirms),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new ClientFaultError(`no flush within ${boundMs} ms`, nowNs(), 'deadline')), boundMs);
            }),
          ]);
        } catch (error) {
          throw error instanceof ClientFaultError ? error : this.failure(error);
        } finally {
          clearTimeout(timer);
        }
      },
      // The wrapper's channels are shared: nothing of its own to close.
      close: async () => undefined,
    };
  }

  async consume(queue, options, onDelivery) {
    return this.client.consume(queue, { noAck: options.ack === 'auto', prefetch: options.prefetch }, (message, channel) =>
      onDelivery({
        body: message.content,
        redelivered: message.fields.redelivered,
        ack: () => {
          if (options.ack !== 'manual') return;
          try {
            channel.ack(message);
          } catch {
            // Its channel died: the broker redelivers the message.
          }
        },
      }),
    );
  }

  ensureConnected(deadlineMs) {
    return this.waitForLibraryRecovery(deadlineMs);
  }

  destroy(reason) {
    this.reportFault(new Error(`connection destroyed by the client: ${reason}`), 'deadline');
    this.client.connection?.connection?.stream?.destroy(new Error(reason));
  }

  async close() {
    if (this.current === 'closed') return;
    this.markClosed();
    let timer;
    const inTime = await Promise.race([
      this.client.close().then(() => true),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(false), CLOSE_BOUND_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!inTime) {
      this.noteCloseBoundHit();
      this.client.connection?.connection?.stream?.destroy(new Error('closed by the harness'));
    }
  }
}

module.exports = defineAdapter({
  name: 'reconnect-wrapper',
  library: 'amqplib',
  version: `${AMQPLIB_VERSION} (reconnect-wrapper ${WRAPPER_VERSION})`,
  multipleHosts: false,
  recovery: 'library',
  signals: SIGNALS,
  settings: settingsOf,
  async connect(profile, options) {
    const info = {
      name: 'reconnect-wrapper',
      profile,
      library: 'amqplib',
      version: `${AMQPLIB_VERSION} (reconnect-wrapper ${WRAPPER_VERSION})`,
      settings: settingsOf(profile),
      multipleHosts: false,
      recovery: 'library',
      signals: SIGNALS,
    };
    const client = new ReconnectingClient(options.urls[0], { ...optionsOf(profile), connectionName: options.connectionName });
    const connection = new WrapperConnection(info, client);
    const boundMs = options.startBoundMs ?? 10_000;
    let timer;
    const started = await Promise.race([
      client.start().then(() => true),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(false), boundMs);
      }),
    ]);
    clearTimeout(timer);
    if (!started) {
      await connection.close();
      throw new TimeoutError(`reconnect-wrapper did not connect within ${boundMs} ms`);
    }
    return connection;
  },
});
