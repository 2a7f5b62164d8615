/**
 * The `cloudamqp` client: @cloudamqp/amqp-client 4.x through its `AMQPSession` (the library's
 * recommended high-level API, with its own reconnection and consumer recovery).
 *
 * What the harness sees of it:
 * - recovery `library`: the session reconnects after `reconnectInterval` (1000 ms by default,
 *   doubling up to `maxReconnectInterval`) and re-consumes; queues, exchanges and bindings are
 *   not redeclared (the harness declares them, non-durable and long-lived);
 * - publishes do not wait for a reconnection: while down they reject with `ClientFaultError`
 *   (nothing is queued), so a publisher sees the outage as every other adapter's does;
 * - all publishers of a connection share the session's confirm channel (confirms) or its ops
 *   channel (plain), where plain publishes are serialised with the session's other operations;
 * - heartbeats are off unless asked for (`heartbeat` 0 by default);
 * - `multipleHosts` false: the session takes one URL (the first of `ConnectOptions.urls`);
 * - `localPort` is the socket of the session's `AMQPClient` (reached through a private field);
 * - its typed signals, and how the library gives each one, are in ./signals.ts; a nacked publish
 *   rejects with `PublishNackedError`.
 */
import type { ClientAdapter, ClientProfile, ConnectOptions } from '../api';
import { bounded } from '../bounded';
import { packageVersion } from '../amqplib/common';
import { CloudamqpConnection } from './connection';
import { reportedSettings, sessionTuningOf } from './settings';
import { CLOUDAMQP_SIGNALS } from './signals';

const LIBRARY = '@cloudamqp/amqp-client';

export const cloudamqpAdapter: ClientAdapter = {
  name: 'cloudamqp',
  library: LIBRARY,
  multipleHosts: false,
  recovery: 'library',
  signals: CLOUDAMQP_SIGNALS,
  acks: { multiple: true, nack: true },
  silenceCheck:
    "no heartbeat check of its own: the socket idle timeout of one heartbeat interval (src/amqp-socket-client.ts:110-113, socket.setTimeout(heartbeat * 1000), destroyed on \"timeout\"), which its own writes reset as well as its reads; it sends no heartbeat of its own, only answers the broker's (src/amqp-base-client.ts:705-708). So it gives up one interval after its last write or read, here after the harness's confirm window filled (its last publishes): the harness's workload, not two missed heartbeats",
  settings: reportedSettings,
  bareOptions: (profile) => ({ ...sessionTuningOf(profile) }),
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const url = options.urls[0];
    if (url === undefined) throw new Error('cloudamqp: ConnectOptions.urls is empty; pass at least one amqp:// URL');
    const connection = new CloudamqpConnection({
      name: 'cloudamqp',
      profile,
      library: LIBRARY,
      version: packageVersion(LIBRARY),
      settings: reportedSettings(profile),
      multipleHosts: false,
      recovery: 'library',
      signals: CLOUDAMQP_SIGNALS,
    });
    await bounded(
      connection.start(url, profile, options.connectionName),
      options.startBoundMs ?? 10_000,
      'first connection took too long',
    ).catch(async (error: unknown) => {
      await connection.close();
      throw error;
    });
    return connection;
  },
};
