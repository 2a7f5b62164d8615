/**
 * rabbitmq-client 5.x (`rabbitmq-client`): its own protocol code, its own recovery. The harness
 * waits for the library and never reconnects for it (see ./connection.ts for what recovers how,
 * ./settings.ts for the two profiles).
 *
 * Publishes while disconnected are queued by the library, not failed: a `publish` made while the
 * connection is `down` waits for the reconnection (up to `acquireTimeout`, 20 s) and then goes
 * out; the harness tells such a publish by the connection's state when it started, and the
 * settings say so (`publishWhileDown`). A publish that fails rejects with `ClientFaultError`, a
 * nacked one with `PublishNackedError` (./publisher.ts). Manual acks go through the handler's
 * returned promise (./consumer.ts). The library's typed signals, and how it gives each one, are
 * in ./signals.ts.
 *
 * @example
 * const connection = await rabbitmqClientAdapter.connect('defaults', { urls: [url], connectionName: 'bench-1' });
 */
import type { ClientAdapter, ClientProfile, ConnectOptions } from '../api';
import { packageVersion } from '../amqplib/common';
import { redactUrl } from '../../redact';
import { RabbitmqClientConnection } from './connection';
import { profileOptions, reportedSettings } from './settings';
import { RABBITMQ_CLIENT_SIGNALS } from './signals';
import { connectionTarget } from './target';

const LIBRARY = 'rabbitmq-client';

export const rabbitmqClientAdapter: ClientAdapter = {
  name: 'rabbitmq-client',
  library: LIBRARY,
  // The library goes round `hosts`, one per connection attempt: every URL is used.
  multipleHosts: true,
  recovery: 'library',
  signals: RABBITMQ_CLIENT_SIGNALS,
  // A delivery is settled by its handler's result, one at a time: no multiple ack.
  acks: { multiple: false, nack: true },
  settings: reportedSettings,
  bareOptions: (profile) => ({ ...profileOptions(profile) }),
  async connect(profile: ClientProfile, options: ConnectOptions) {
    const connection = new RabbitmqClientConnection(
      {
        name: 'rabbitmq-client',
        profile,
        library: LIBRARY,
        version: packageVersion(LIBRARY),
        settings: reportedSettings(profile),
        multipleHosts: true,
        recovery: 'library',
        signals: RABBITMQ_CLIENT_SIGNALS,
      },
      {
        ...connectionTarget(options.urls),
        ...profileOptions(profile),
        ...(options.connectionName ? { connectionName: options.connectionName } : {}),
      },
    );
    try {
      await connection.started(options.startBoundMs ?? 10_000, options.urls.map(redactUrl).join(', '));
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  },
};
