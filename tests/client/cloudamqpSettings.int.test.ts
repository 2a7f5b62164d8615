/**
 * The settings each profile of the `cloudamqp` adapter really gives @cloudamqp/amqp-client: the
 * names and values it reports, TCP_NODELAY on the socket, and the heartbeat the broker negotiated.
 */
import { randomUUID } from 'node:crypto';
import type { ClientConnection, ClientProfile } from '../../src/client/api';
import { AMQPSession } from '../../src/client/cloudamqp/amqpClient';
import { sessionTuningOf } from '../../src/client/cloudamqp/settings';
import { transportOf } from '../../src/client/cloudamqp/transport';
import { clientInfo, connectClient } from '../../src/client/registry';
import { getConfig } from '../../src/config';
import { findBrokerConnection } from './support/brokerAdmin';

const directUrl = getConfig().amqpUrl;

describe('cloudamqp adapter: the settings of each profile (real broker)', () => {
  const connections: ClientConnection[] = [];
  const connect = async (profile: ClientProfile, url: string, connectionName?: string): Promise<ClientConnection> => {
    const connection = await connectClient({ name: 'cloudamqp', profile }, { urls: [url], connectionName, startBoundMs: 10_000 });
    connections.push(connection);
    return connection;
  };
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
  });

  it("reports its settings in the library's option names, defaults with the library's values", () => {
    const defaults = clientInfo({ name: 'cloudamqp', profile: 'defaults' });
    expect(defaults).toMatchObject({ library: '@cloudamqp/amqp-client', multipleHosts: false, recovery: 'library' });
    expect(defaults.version).toMatch(/^4\./);
    expect(defaults.settings).toMatchObject({
      heartbeat: expect.stringMatching(/^default \(0: off/) as unknown,
      reconnectInterval: 'default (1000)',
      maxReconnectInterval: 'default (30000)',
      backoffMultiplier: 'default (2)',
      frameMax: 'default (8192)',
      no_delay: expect.stringMatching(/^default \(false: Nagle on/) as unknown,
    });
    expect(clientInfo({ name: 'cloudamqp', profile: 'normalised' }).settings).toMatchObject({
      heartbeat: 5,
      reconnectInterval: 100,
      maxReconnectInterval: 1000,
      backoffMultiplier: 'default (2)',
      no_delay: true,
    });
  });

  it.each([
    ['defaults', false],
    ['normalised', true],
  ] as const)(
    "sets TCP_NODELAY through the session's tlsOptions only when its profile asks (%s: %s)",
    async (profile, noDelay) => {
      // The library has no noDelay option; its TCP connect spreads tlsOptions into net.connect's options.
      const session = await AMQPSession.connect(directUrl, { logger: null, ...sessionTuningOf(profile) });
      try {
        const socket = transportOf(session).socket!;
        // Node keeps the requested state under a private symbol; there is no public getter.
        const state = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'kSetNoDelay');
        expect(state && (socket as unknown as Record<symbol, unknown>)[state]).toBe(noDelay);
      } finally {
        await session.stop();
      }
    },
    30_000,
  );

  it.each([
    ['defaults', 0],
    ['normalised', 5],
  ] as const)(
    'negotiates the heartbeat its profile asks for (%s: %i s on the broker)',
    async (profile, heartbeatSeconds) => {
      const connectionName = `test-cloudamqp-heartbeat-${randomUUID()}`;
      await connect(profile, directUrl, connectionName);
      expect((await findBrokerConnection(directUrl, connectionName)).heartbeatSeconds).toBe(heartbeatSeconds);
    },
    30_000,
  );
});
