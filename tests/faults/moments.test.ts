import { partition as networkPartition } from '../../src/faults/kinds/partition';
import { resetPeer } from '../../src/faults/kinds/resetPeer';
import { actedConnections, clientPortOf, faultMomentsByPort, faultSpread } from '../../src/faults/moments';

const MS = 1_000_000n;

describe('actedConnections', () => {
  it('keeps the first moment the fault acted on each connection, oldest first, and only the kinds that are the fault', () => {
    const events = [
      { at_ns: String(9n * MS), kind: 'reset_sent', connection_id: 2, client: '127.0.0.1:40002' },
      { at_ns: String(3n * MS), kind: 'reset_sent', connection_id: 1, client: '127.0.0.1:40001' },
      { at_ns: String(5n * MS), kind: 'reset_sent', connection_id: 2, client: '127.0.0.1:40002' },
      { at_ns: String(1n * MS), kind: 'timeout_removed_closed', connection_id: 3, client: '127.0.0.1:40003' },
    ];
    expect(actedConnections(events, resetPeer)).toEqual([
      { timeNs: 3n * MS, clientPort: 40001 },
      { timeNs: 5n * MS, clientPort: 40002 },
    ]);
    // A partition is felt at the first dropped chunk or an idle close.
    const partition = [
      { at_ns: String(7n * MS), kind: 'data_dropped', connection_id: 1, client: '127.0.0.1:40001' },
      { at_ns: String(2n * MS), kind: 'timeout_closed', connection_id: 4, client: '127.0.0.1:40004' },
    ];
    expect(actedConnections(partition, networkPartition).map((one) => one.timeNs)).toEqual([2n * MS, 7n * MS]);
    expect(actedConnections(null, resetPeer)).toEqual([]);
  });

  it('counts an event that names no connection as a connection of its own', () => {
    const events = [
      { at_ns: String(4n * MS), kind: 'reset_sent' },
      { at_ns: String(6n * MS), kind: 'reset_sent' },
    ];
    expect(actedConnections(events, resetPeer)).toEqual([
      { timeNs: 4n * MS, clientPort: null },
      { timeNs: 6n * MS, clientPort: null },
    ]);
  });
});

describe('faultSpread', () => {
  it('is first to last over every connection, in ms', () => {
    expect(
      faultSpread([
        { timeNs: 10n * MS, clientPort: 1 },
        { timeNs: 4n * MS + 250_000n, clientPort: 2 },
        { timeNs: 7n * MS, clientPort: 3 },
      ]),
    ).toEqual({ firstNs: 4n * MS + 250_000n, lastNs: 10n * MS, spreadMs: 5.75, connections: 3 });
  });

  it('is 0 for one connection and null for none (no timeline)', () => {
    expect(faultSpread([{ timeNs: 4n * MS, clientPort: 1 }])).toEqual({ firstNs: 4n * MS, lastNs: 4n * MS, spreadMs: 0, connections: 1 });
    expect(faultSpread([])).toBeNull();
  });
});

describe('faultMomentsByPort and clientPortOf', () => {
  it('maps each named client port to its fault moment', () => {
    const moments = faultMomentsByPort([
      { timeNs: 4n * MS, clientPort: 40001 },
      { timeNs: 6n * MS, clientPort: null },
    ]);
    expect([...moments]).toEqual([[40001, 4n * MS]]);
  });

  it('reads the port of host:port, IPv6 too', () => {
    expect(clientPortOf({ client: '127.0.0.1:40001' })).toBe(40001);
    expect(clientPortOf({ client: '[::1]:40002' })).toBe(40002);
    expect(clientPortOf({ client: 'nonsense' })).toBeNull();
    expect(clientPortOf({})).toBeNull();
  });
});
