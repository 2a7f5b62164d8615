/**
 * The start barrier's clock (pure): an agent on the coordinator's machine starts at the
 * coordinator's monotonic instant exactly; one elsewhere at the wall-clock time; one that learns
 * of a start already past is late. And the control messages: a message of another protocol
 * version is refused, saying what to do.
 */
import { fromWallClock, isLate, startFromMessage, START_LEAD_MS, type StartMessage } from '../../src/fleet/barrier';
import { newRunId, parseControlMessage, RUN_ID_PATTERN } from '../../src/fleet/protocol';

const start = (overrides: Partial<StartMessage> = {}): StartMessage => ({
  kind: 'start',
  version: 1,
  sent_unix_ms: 1_000_000,
  start_at_unix_ms: 1_000_000 + START_LEAD_MS,
  start_mono_ns: String(5_000_000_000n + BigInt(START_LEAD_MS) * 1_000_000n),
  machine_id: 'boot:a',
  ...overrides,
});

describe('the start barrier', () => {
  test('on the coordinator’s machine: the same monotonic instant, whatever the wall clock says', () => {
    const here = { machineId: 'boot:a', nowNs: 5_000_400_000n, nowUnixMs: 9_999_999 };
    const instant = startFromMessage(start(), here);
    expect(instant.clock).toBe('monotonic');
    expect(instant.startNs).toBe(6_500_000_000n);
    expect(instant.lateMs).toBeCloseTo(-1499.6, 3);
    expect(isLate(instant)).toBe(false);
  });

  test('on another machine: the wall-clock start, in this machine’s monotonic time, and how late the message came by the two clocks', () => {
    const here = { machineId: 'boot:b', nowNs: 77_000_000_000n, nowUnixMs: 1_000_030 };
    const instant = startFromMessage(start(), here);
    expect(instant.clock).toBe('wall');
    expect(instant.startNs).toBe(77_000_000_000n + 1_470_000_000n);
    expect(instant.messageDelayMs).toBe(30);
  });

  test('a start already past is late beyond the tolerance, on time within it', () => {
    expect(isLate(fromWallClock(1000, { machineId: 'x', nowNs: 0n, nowUnixMs: 1040 }))).toBe(false);
    const late = fromWallClock(1000, { machineId: 'x', nowNs: 0n, nowUnixMs: 1812 });
    expect(isLate(late)).toBe(true);
    expect(late.lateMs).toBe(812);
  });

  test('control messages: another version is refused with what to do; unknown kinds and non-JSON too', () => {
    expect(parseControlMessage(JSON.stringify({ version: 2, kind: 'ready', agent: 0 }))).toMatch(
      /protocol version 2, this side speaks 1 \(run every agent and the coordinator from one amqp-bench version\)/,
    );
    expect(parseControlMessage(JSON.stringify({ version: 1, kind: 'meteor' }))).toBe('unknown kind meteor');
    expect(parseControlMessage('{')).toBe('not JSON');
    expect(parseControlMessage(JSON.stringify({ version: 1, kind: 'ready', agent: 3, sent_unix_ms: 1 }))).toEqual({
      version: 1,
      kind: 'ready',
      agent: 3,
      sent_unix_ms: 1,
    });
  });

  test('run ids are usable as queue and connection names', () => {
    const id = newRunId(new Date(0), () => 0.5);
    expect(id).toBe('fleet-0-i000');
    expect(RUN_ID_PATTERN.test(id)).toBe(true);
    expect(RUN_ID_PATTERN.test('a b')).toBe(false);
  });
});
