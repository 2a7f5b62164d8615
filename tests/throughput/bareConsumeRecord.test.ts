/**
 * The bare consume script's command line and the driver's reading of its records (pure parts);
 * the script itself against the real broker is in consumeSession.int.test.ts.
 */
import { hasBareConsume, parseBareConsumeRecord } from '../../src/throughput/bareConsume';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseConsumeArgs } = require('../../scripts/bare/consumeProtocol.js') as {
  parseConsumeArgs: (argv: string[]) => Record<string, unknown>;
};

describe('bare-consume command line', () => {
  it('has defaults for everything but the queue', () => {
    expect(parseConsumeArgs(['--queue', 'q'])).toEqual({
      client: 'amqplib',
      queue: 'q',
      consumers: 1,
      prefetch: 100,
      warmupMs: 1000,
      windowMs: 3000,
      windows: 1,
      serve: false,
    });
  });

  it('takes every option', () => {
    expect(
      parseConsumeArgs([
        '--client',
        'rabbitmq-client',
        '--queue',
        'q',
        '--consumers',
        '10',
        '--prefetch',
        '50',
        '--warmup-ms',
        '0',
        '--window-ms',
        '500',
        '--windows',
        '3',
        '--serve',
      ]),
    ).toEqual({ client: 'rabbitmq-client', queue: 'q', consumers: 10, prefetch: 50, warmupMs: 0, windowMs: 500, windows: 3, serve: true });
  });

  it.each([
    [[], '--queue NAME is required (an existing queue that something keeps fed)'],
    [['--queue', 'q', '--consumers', '0'], '--consumers must be a whole number of at least 1; got "0"'],
    [['--queue', 'q', '--window-ms', 'soon'], '--window-ms must be a whole number of at least 1; got "soon"'],
    [['--queue'], '--queue needs a value'],
    [
      ['--queue', 'q', '--messages', '5'],
      'unknown argument "--messages"; expected --client, --queue, --consumers, --prefetch, --warmup-ms, --window-ms, --windows or --serve',
    ],
    [['--queue', 'q', '--client', '../evil'], '--client must be a client name (e.g. amqplib); got "../evil"'],
  ])('refuses %j with a message that says what to do', (argv, message) => {
    expect(() => parseConsumeArgs(argv)).toThrow(message);
  });
});

describe('a bare-consume record', () => {
  const line = JSON.stringify({
    round: 1,
    consumers: 10,
    prefetch: 100,
    warmup_ms: 1000,
    window_ms: 3000,
    started_ns: '123456789012345678',
    ended_ns: '123456792012345678',
    seconds: 3,
    messages: 150_000,
    msgs_per_sec: 50_000,
    cpu_ms: 1500,
    consumed_total: 200_000,
  });

  it('carries the window edges as exact clock readings', () => {
    expect(parseBareConsumeRecord(line)).toEqual({
      consumers: 10,
      prefetch: 100,
      warmup_ms: 1000,
      window_ms: 3000,
      startedNs: 123456789012345678n,
      endedNs: 123456792012345678n,
      seconds: 3,
      messages: 150_000,
      msgs_per_sec: 50_000,
      cpuMs: 1500,
      consumed_total: 200_000,
    });
    expect(parseBareConsumeRecord(line.replace('"cpu_ms":1500', '"cpu_ms":null')).cpuMs).toBeNull();
  });

  it('names what is missing or wrong', () => {
    expect(() => parseBareConsumeRecord('ready')).toThrow('bare-consume printed a line that is not JSON: "ready"');
    expect(() => parseBareConsumeRecord('{"consumers":1}')).toThrow(
      'bare-consume output needs a finite non-negative number in "prefetch"; got undefined',
    );
    expect(() => parseBareConsumeRecord(line.replace('"cpu_ms":1500', '"cpu_ms":"1.5 s"'))).toThrow(
      'bare-consume output needs a non-negative number or null in "cpu_ms"; got "1.5 s"',
    );
    const edgeless = { ...(JSON.parse(line) as object), started_ns: 12 };
    expect(() => parseBareConsumeRecord(JSON.stringify(edgeless))).toThrow(
      'bare-consume output needs a clock reading (digits in a string) in "started_ns"; got 12',
    );
  });
});

describe('which client libraries have a bare consumer', () => {
  it('is the modules that say so (supportsConsume), never a path', () => {
    expect(hasBareConsume('amqplib')).toBe(true);
    expect(hasBareConsume('nope')).toBe(false);
    expect(hasBareConsume('../bare/amqplib')).toBe(false);
  });
});
