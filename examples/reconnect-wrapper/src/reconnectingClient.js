'use strict';
/**
 * A hand-written reconnect wrapper around amqplib, of the kind many Node applications carry:
 * one connection, reconnected after a fixed delay whenever it drops; a plain and a confirm channel
 * for publishing, opened again after every reconnection (and after the broker closes one); every
 * consumer registered with it consumed again on the new connection.
 *
 * What it does not do (on purpose: most wrappers do not): consume again after the broker cancels a
 * consumer (a deleted queue, basic.cancel), or hold publishes back while disconnected — those
 * fail at once with "not connected".
 *
 * Events: 'connected', 'error' (err: amqplib's connection error, the earliest word of a drop),
 * 'disconnected' (err | undefined), 'reconnectFailed' (err), 'channelError' (err),
 * 'consumerCancelled' (queue), 'blocked' (reason), 'unblocked'.
 */
const { EventEmitter } = require('node:events');
const amqp = require('amqplib');

class ReconnectingClient extends EventEmitter {
  /**
   * @param {string} url
   * @param {{ retryDelayMs?: number, heartbeatSeconds?: number, connectionName?: string }} [options]
   */
  constructor(url, options = {}) {
    super();
    this.url = url;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.heartbeatSeconds = options.heartbeatSeconds;
    this.connectionName = options.connectionName;
    this.connection = undefined;
    this.channel = undefined;
    this.confirmChannel = undefined;
    this.consumers = new Set();
    this.closed = false;
    this.retryTimer = undefined;
    this.lastError = undefined;
  }

  get connected() {
    return this.connection !== undefined && this.channel !== undefined && this.confirmChannel !== undefined;
  }

  /** The local TCP port of the current socket (amqplib keeps it on connection.stream). */
  get localPort() {
    return this.connection?.connection?.stream?.localPort;
  }

  /** Connects, retrying until it works (or close()); resolves once connected. */
  start() {
    return new Promise((resolve) => {
      this.once('connected', resolve);
      void this.connect();
    });
  }

  async connect() {
    if (this.closed) return;
    const url = this.heartbeatSeconds === undefined ? this.url : withQuery(this.url, 'heartbeat', this.heartbeatSeconds);
    let connection;
    try {
      connection = await amqp.connect(url, { clientProperties: { connection_name: this.connectionName } });
    } catch (error) {
      this.emit('reconnectFailed', error);
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await connection.close().catch(() => undefined);
      return;
    }
    this.lastError = undefined;
    connection.on('error', (error) => {
      this.lastError = error;
      this.emit('error', error);
    });
    connection.on('close', () => this.lost(connection));
    connection.on('blocked', (reason) => this.emit('blocked', reason));
    connection.on('unblocked', () => this.emit('unblocked'));
    this.connection = connection;
    try {
      await this.openPublishChannels();
      for (const consumer of this.consumers) await this.startConsumer(consumer);
    } catch (error) {
      // The connection died while its channels opened: its 'close' reconnects.
      this.lastError = error;
      return;
    }
    this.emit('connected');
  }

  async openPublishChannels() {
    const connection = this.connection;
    const channel = await connection.createChannel();
    const confirmChannel = await connection.createConfirmChannel();
    for (const [name, each] of [
      ['channel', channel],
      ['confirmChannel', confirmChannel],
    ]) {
      each.on('error', (error) => this.emit('channelError', error));
      // The broker closed it (404 to a missing exchange...): open another while the connection lives.
      each.on('close', () => {
        if (this[name] !== each || this.connection !== connection || this.closed) return;
        this[name] = undefined;
        const open = name === 'channel' ? connection.createChannel() : connection.createConfirmChannel();
        open.then(
          (replacement) => {
            replacement.on('error', (error) => this.emit('channelError', error));
            if (this.connection === connection) this[name] = replacement;
          },
          () => undefined,
        );
      });
    }
    this.channel = channel;
    this.confirmChannel = confirmChannel;
  }

  lost(connection) {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.channel = undefined;
    this.confirmChannel = undefined;
    for (const consumer of this.consumers) consumer.channel = undefined;
    this.emit('disconnected', this.lastError);
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    if (this.closed) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryDelayMs);
  }

  /** Publishes on the plain channel; resolves once written (waiting for 'drain' when the buffer is full). */
  publish(exchange, routingKey, body, options = {}) {
    const channel = this.channel;
    if (!channel) return Promise.reject(new Error('not connected'));
    try {
      if (channel.publish(exchange, routingKey, body, options)) return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve) => channel.once('drain', resolve));
  }

  /** Publishes on the confirm channel; resolves when the broker confirmed it, rejects on a nack or a drop. */
  publishConfirmed(exchange, routingKey, body, options = {}) {
    const channel = this.confirmChannel;
    if (!channel) return Promise.reject(new Error('not connected'));
    return new Promise((resolve, reject) => {
      try {
        channel.publish(exchange, routingKey, body, options, (error) => (error ? reject(error) : resolve()));
      } catch (error) {
        reject(error);
      }
    });
  }

  /** Resolves once the broker has taken everything published so far (a confirm, or a round trip behind the messages). */
  async flush(confirmed) {
    const channel = confirmed ? this.confirmChannel : this.channel;
    if (!channel) throw new Error('not connected');
    if (confirmed) await channel.waitForConfirms();
    else await channel.checkExchange('amq.direct');
  }

  /**
   * Consumes `queue` on a channel of its own (its prefetch), now and after every reconnection.
   * @returns {{ cancel(): Promise<void> }}
   */
  async consume(queue, options, onMessage) {
    const consumer = { queue, options, onMessage, channel: undefined, tag: undefined };
    this.consumers.add(consumer);
    if (this.connection) await this.startConsumer(consumer);
    return {
      cancel: async () => {
        this.consumers.delete(consumer);
        const channel = consumer.channel;
        consumer.channel = undefined;
        await channel?.close().catch(() => undefined);
      },
    };
  }

  async startConsumer(consumer) {
    const channel = await this.connection.createChannel();
    channel.on('error', (error) => this.emit('channelError', error));
    if (consumer.options.prefetch) await channel.prefetch(consumer.options.prefetch);
    consumer.channel = channel;
    const { consumerTag } = await channel.consume(
      consumer.queue,
      (message) => {
        // null: the broker cancelled the consumer. This wrapper says so, and does not consume again.
        if (message === null) {
          this.emit('consumerCancelled', consumer.queue);
          return;
        }
        consumer.onMessage(message, channel);
      },
      { noAck: consumer.options.noAck ?? false },
    );
    consumer.tag = consumerTag;
  }

  /** Stops reconnecting and closes the connection. */
  async close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close().catch(() => undefined);
  }
}

function withQuery(url, key, value) {
  const parsed = new URL(url);
  if (!parsed.searchParams.has(key)) parsed.searchParams.set(key, String(value));
  return parsed.toString();
}

module.exports = { ReconnectingClient };
