/**
 * The load run's connection supervisor: each fault a client reports gets the moment the client
 * was back, also a fault reported while an earlier one is still being waited out. The client is
 * a stand-in here: two faults landing inside one reconnection cannot be timed on real sockets.
 */
import type { ClientConnection, ClientFault, EnsureResult } from '../../src/client/api';
import { superviseConnection } from '../../src/load/supervise';
import { pollUntil } from '../../src/measure/clock';

function standInConnection() {
  let listener: ((fault: ClientFault) => void) | undefined;
  const pending: ((result: EnsureResult) => void)[] = [];
  const connection = {
    info: { name: 'stand-in' },
    onFault(handler: (fault: ClientFault) => void) {
      listener = handler;
      return () => (listener = undefined);
    },
    ensureConnected: () => new Promise<EnsureResult>((resolve) => pending.push(resolve)),
  } as unknown as ClientConnection;
  return {
    connection,
    fault: (detectedNs: bigint) => listener?.({ kind: 'reset', message: 'test', detectedNs }),
    /** Resolves the oldest waiting ensureConnected call (after one is waiting). */
    async back(connectedNs: bigint) {
      expect(await pollUntil(() => pending.length > 0, 2000, 1)).toBe(true);
      pending.shift()!({ attempts: 1, connectedNs });
    },
  };
}

describe('superviseConnection', () => {
  it('closes a fault reported during the wait for an earlier one with the same return', async () => {
    const client = standInConnection();
    const supervisor = superviseConnection(client.connection, () => undefined);
    try {
      client.fault(100n);
      client.fault(200n);
      await client.back(300n);
      expect(await pollUntil(() => supervisor.faults.every((fault) => fault.backNs !== null), 2000, 1)).toBe(true);
      expect(supervisor.faults.map((fault) => fault.backNs)).toEqual([300n, 300n]);
    } finally {
      supervisor.stop();
    }
  }, 10_000);

  it('waits again for a fault reported after the connection it was given had come back', async () => {
    const client = standInConnection();
    const supervisor = superviseConnection(client.connection, () => undefined);
    try {
      client.fault(100n);
      client.fault(200n);
      await client.back(150n);
      await client.back(400n);
      expect(await pollUntil(() => supervisor.faults.every((fault) => fault.backNs !== null), 2000, 1)).toBe(true);
      expect(supervisor.faults.map((fault) => fault.backNs)).toEqual([150n, 400n]);
    } finally {
      supervisor.stop();
    }
  }, 10_000);
});
