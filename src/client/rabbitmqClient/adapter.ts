/**
 * rabbitmq-client 5.x (`rabbitmq-client`): its own protocol code, its own recovery. The harness
 * waits for the library and never reconnects for it (see ./connection.ts for what recovers how,
 * ./settings.ts for the two profiles, ./publisher.ts for publishes while disconnected).
 *
 * @example
 * const connection = await rabbitmqClientAdapter.connect('defaults', { urls: [url], connectionName: 'bench-1' });
 */
import type { ClientAdapter, ClientProfile, ConnectOptions } from '../api';
import { packageVersion } from '../amqplib/common';
import { redactUrl } from '../../redact';
import { RabbitmqClientConnection } from './connection';
import { profileOptions, reportedSettings } from './settings';
import { connectionTarget } from './target';

const LIBRARY = 'rabbitmq-client';

export const rabbitmqClientAdapter: ClientAdapter = {
  name: 'rabbitmq-client',
  library: LIBRARY,
  // The library goes round `hosts`, one per connection attempt: every URL is used.
  multipleHosts: true,
  recovery: 'library',
  settings: reportedSettings,
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
