/**
 * Closing the harness's own connections by name on the real broker, while another client is
 * still in its handshake: such a connection has no client properties yet (the node says `none`),
 * which once failed the whole close (CI: "bad_generator, none") and stopped a fault-matrix cell.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { sharedBrokerActions } from '../../src/broker/actions';
import { getConfig } from '../../src/config';

/** A socket that sent the AMQP header and stays there: the node holds it as a connection in handshake. */
async function halfOpenConnection(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port || 5672), hostname);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  // connection.start arrives once the node registered the connection; the header alone is not enough to list it.
  const started = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]));
  await started;
  return socket;
}

describe('broker actions: closing connections by name (real broker)', () => {
  it('closes the named connection even while another connection is still in its handshake', async () => {
    const { amqpUrl } = getConfig();
    const prefix = `bench-test-close-${randomUUID()}`;
    const actions = sharedBrokerActions(amqpUrl);
    const handshaking = await halfOpenConnection(amqpUrl);
    const named = await amqp.connect(amqpUrl, { clientProperties: { connection_name: `${prefix}-a` } });
    try {
      const closed = new Promise<void>((resolve) => named.once('close', () => resolve()));
      named.on('error', () => undefined);
      await expect(actions.closeConnections(prefix, 'test close')).resolves.toEqual([`${prefix}-a`]);
      await closed;
    } finally {
      handshaking.destroy();
      await named.close().catch(() => undefined);
      await actions.close();
    }
  }, 60_000);
});
