/**
 * Which broker a herd stands on, from the sockets the broker holds: the shared broker while its
 * limit takes the herd, its control connections and a margin; a node the harness starts past it
 * (or a refusal that says what to do, when the shared broker was insisted on or the node has no
 * room either). Figures are RabbitMQ 3.10's own: 832 sockets at a soft open-files limit of 1024,
 * 17910 at 20000.
 */
import { parseHerdBroker } from '../../src/cli/herdCommand';
import { ConfigError } from '../../src/errors';
import {
  checkNodeRoom,
  chooseHerdBroker,
  herdSocketsNeeded,
  largestHerd,
  parseBrokerRoom,
  type BrokerRoom,
} from '../../src/fleet/herd/room';

const SHARED: BrokerRoom = { socketsLimit: 832, connectionsOpen: 0 };
const NODE: BrokerRoom = { socketsLimit: 17_910, connectionsOpen: 0 };
const choose = (connections: number, shared: BrokerRoom | undefined, choice: 'auto' | 'shared' | 'node' = 'auto', agents = 10) =>
  chooseHerdBroker({ choice, drop: 'broker_close', connections, agents, shared });

describe('sockets a herd needs', () => {
  test('its connections, the admin, the control connections when on the same broker, and a margin of 10 % (at least 50)', () => {
    expect(herdSocketsNeeded({ connections: 1000, agents: 10, controlOnIt: true })).toBe(1000 + 1 + 11 + 100);
    expect(herdSocketsNeeded({ connections: 1000, agents: 10, controlOnIt: false })).toBe(1000 + 1 + 100);
    expect(herdSocketsNeeded({ connections: 12, agents: 3, controlOnIt: true })).toBe(12 + 1 + 4 + 50);
  });

  test('the largest herd is the last that fits, exactly', () => {
    // 745 + 1 + 11 + 75 = 832; 746 needs 833.
    expect(largestHerd(SHARED, 10, true)).toBe(745);
    // 755 + 1 + 76 = 832; 756 needs 833.
    expect(largestHerd(SHARED, 10, false)).toBe(755);
    expect(largestHerd({ socketsLimit: 40, connectionsOpen: 0 }, 1, true)).toBe(0);
  });
});

describe('the broker a herd stands on', () => {
  test('1,000 connections do not fit the shared broker: auto moves them to a node, saying why', () => {
    const broker = choose(1000, SHARED);
    expect(broker.kind).toBe('node');
    expect(broker.why).toBe('the shared broker has no room for it (832 sockets, 0 connections open; the herd needs 1112 with its margin)');
  });

  test('a small herd stays on the shared broker, up to the last connection that fits', () => {
    expect(choose(12, SHARED, 'auto', 3)).toEqual({
      kind: 'shared',
      why: 'the shared broker has room (832 sockets, 0 connections open; the herd needs 67)',
    });
    expect(choose(745, SHARED).kind).toBe('shared');
    expect(choose(746, SHARED).kind).toBe('node');
  });

  test("other clients' connections on the shared broker count against it", () => {
    expect(choose(700, SHARED).kind).toBe('shared');
    expect(choose(700, { socketsLimit: 832, connectionsOpen: 60 }).kind).toBe('node');
  });

  test('--broker shared refuses a herd it cannot hold, with the largest that fits and what to do', () => {
    expect(() => choose(1000, SHARED, 'shared')).toThrow(ConfigError);
    expect(() => choose(1000, SHARED, 'shared')).toThrow(
      /^--connections must be at most 745 with --broker shared: the shared broker holds 832 sockets, 0 connections open, and 1000 connections need 1112 .*Leave --broker at auto .* or run fewer connections; got "1000"$/,
    );
    expect(choose(745, SHARED, 'shared').kind).toBe('shared');
  });

  test('a node restart, and --broker node, always have a node (the shared broker is not read)', () => {
    expect(chooseHerdBroker({ choice: 'auto', drop: 'node_restart', connections: 12, agents: 3, shared: undefined }).kind).toBe('node');
    expect(choose(12, undefined, 'node').kind).toBe('node');
    expect(() => choose(12, undefined, 'auto')).toThrow(/has to be read/);
  });

  test('a node with room takes 1,000; one without is refused, naming the hard limit to raise', () => {
    expect(() => checkNodeRoom(NODE, { connections: 1000, agents: 10 })).not.toThrow();
    expect(() => checkNodeRoom(SHARED, { connections: 1000, agents: 10 })).toThrow(
      /^--connections must be at most 755 here: the node the harness started holds 832 sockets.*`ulimit -Hn`.*Raise the hard limit/,
    );
    expect(() => checkNodeRoom(SHARED, { connections: 755, agents: 10 })).not.toThrow();
  });
});

describe('reading the room and the flag', () => {
  test("rabbitmqctl status --formatter json (RabbitMQ 3.10's shape)", () => {
    const status = JSON.stringify({
      file_descriptors: { sockets_limit: 832, sockets_used: 0, total_limit: 927, total_used: 2 },
      totals: { virtual_host_count: 1, connection_count: 4, queue_count: 0 },
    });
    expect(parseBrokerRoom(status)).toEqual({ socketsLimit: 832, connectionsOpen: 4 });
    expect(parseBrokerRoom(JSON.stringify({ file_descriptors: { sockets_limit: 17_910 } }))).toEqual(NODE);
    expect(() => parseBrokerRoom(JSON.stringify({ totals: {} }))).toThrow(/no file_descriptors.sockets_limit/);
  });

  test('--broker: auto, shared or node; shared is refused with a node restart', () => {
    expect(parseHerdBroker('auto', { kind: 'broker_close' })).toBe('auto');
    expect(parseHerdBroker('shared', { kind: 'broker_close' })).toBe('shared');
    expect(parseHerdBroker('node', { kind: 'node_restart', downMs: 3000 })).toBe('node');
    expect(() => parseHerdBroker('rabbit', { kind: 'broker_close' })).toThrow('--broker must be auto, shared or node; got "rabbit"');
    expect(() => parseHerdBroker('shared', { kind: 'node_restart', downMs: 3000 })).toThrow(
      '--broker must be auto or node with --drop node_restart (the shared broker is never restarted); got "shared"',
    );
  });
});
