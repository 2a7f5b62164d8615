/**
 * The client protocol's driver (src/client/process/) against a tiny client program
 * (tests/fixtures/programs/fixture-client.py, no broker behind it): every command and event of
 * the protocol, the program's own times kept, and each way a program can misbehave — crash, print
 * what is not the protocol, answer late or never, ignore a stop, leave a child behind — ended
 * within its bound with its whole process group, said in one line with its last output.
 */
import path from 'node:path';
import type { ClientAdapter, ClientConnection } from '../../src/client/api';
import type { ProgramConnection } from '../../src/client/process/connection';
import { loadClientModule } from '../../src/client/registry';
import { nowNs } from '../../src/measure/clock';

const FIXTURE = path.resolve(__dirname, '../fixtures/programs/fixture-client.py');
const URLS = ['amqp://guest:guest@127.0.0.1:1'];

let adapter: ClientAdapter;
const opened: ClientConnection[] = [];
let stderrLines: string[] = [];
let stderrSpy: jest.SpyInstance | undefined;

beforeAll(() => {
  adapter = loadClientModule(FIXTURE);
});

beforeEach(() => {
  stderrLines = [];
  const write = process.stderr.write.bind(process.stderr);
  stderrSpy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).startsWith('amqp-bench: client program')) {
      stderrLines.push(String(chunk));
      return true;
    }
    return write(chunk, ...(rest as []));
  });
});

afterEach(async () => {
  delete process.env.FIXTURE_MISBEHAVIOUR;
  delete process.env.FIXTURE_PROTOCOL;
  stderrSpy?.mockRestore();
  await Promise.allSettled(opened.splice(0).map((connection) => connection.close()));
});

async function connect(misbehaviour = '', startBoundMs = 10_000): Promise<ClientConnection> {
  if (misbehaviour) process.env.FIXTURE_MISBEHAVIOUR = misbehaviour;
  const connection = await adapter.connect('defaults', { urls: URLS, startBoundMs });
  opened.push(connection);
  return connection;
}

const pidOf = (connection: ClientConnection): number => (connection as unknown as { pid: number }).pid;

/** True while any process of the group `pid` leads is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(predicate: () => boolean, boundMs: number): Promise<boolean> {
  const until = performance.now() + boundMs;
  while (performance.now() < until) {
    if (predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return predicate();
}

describe('a client program speaking the protocol (a fixture, no broker)', () => {
  it('describes itself; publishes, delivers, answers the clock; its fault keeps its own time; it recovers and closes, leaving nothing', async () => {
    expect(adapter.name).toBe('fixture-client');
    expect(adapter.recovery).toBe('harness');
    const connection = await connect();
    expect(connection.localPort).toBe(40000);
    expect(connection.info).toMatchObject({ name: 'fixture-client', library: 'fixture', version: '1.0.0' });

    const bodies: string[] = [];
    await connection.consume('q', { ack: 'manual' }, (delivery) => {
      bodies.push(delivery.body.toString());
      delivery.ack();
    });
    const publisher = await connection.publisher({ confirms: true });
    await publisher.publish('', 'q', Buffer.from('one'));
    await publisher.publish('', 'q', Buffer.from('two'));
    expect(bodies).toEqual(['one', 'two']);

    const run = await publisher.publishRun!('', 'q', 1000, 16, 5000);
    expect(run).toMatchObject({ published: 1000, errors: 0, latencyUs: { valuesUs: [5], counts: [1000] } });
    expect(run.completedNs).toBeGreaterThanOrEqual(run.startedNs);

    const beforeNs = nowNs();
    const clockNs = await (connection as unknown as { readClockNs(): Promise<bigint> }).readClockNs();
    expect(clockNs).toBeGreaterThanOrEqual(beforeNs);
    expect(clockNs).toBeLessThanOrEqual(nowNs());

    const faults: bigint[] = [];
    connection.onFault((fault) => faults.push(fault.detectedNs));
    const destroyedNs = nowNs();
    connection.destroy('test');
    expect(await waitUntil(() => faults.length === 1, 5000)).toBe(true);
    expect(connection.state).toBe('down');
    // The program stamped its fault 5 ms before writing it: the driver keeps the program's time.
    expect(faults[0]!).toBeLessThan(destroyedNs);
    const back = await connection.ensureConnected(5000);
    expect(back.attempts).toBe(2);
    expect(connection.state).toBe('up');
    expect(connection.localPort).toBe(40001);

    const pid = pidOf(connection);
    await connection.close();
    expect(connection.state).toBe('closed');
    expect(await waitUntil(() => !groupAlive(pid), 2000)).toBe(true);
    expect(stderrLines).toEqual([]);
  }, 30_000);
});

describe('the protocol versions a program may speak', () => {
  it('version 2: `recover` makes and times the round trip in the program, through the consumer of the queue named', async () => {
    process.env.FIXTURE_PROTOCOL = '2';
    const connection = (await connect()) as ProgramConnection;
    expect(connection.recoversInProgram).toBe(true);
    const bodies: string[] = [];
    await connection.consume('other', { ack: 'auto' }, () => undefined);
    await connection.consume('q', { ack: 'auto' }, (delivery) => bodies.push(delivery.body.toString()));
    connection.destroy('test');
    expect(await waitUntil(() => connection.state === 'down', 5000)).toBe(true);
    const beforeNs = nowNs();
    const recovered = await connection.recoverWithProbe('q', 5000, 5000);
    // The program's own times, in its order, between the harness's asking and its answer.
    expect(recovered.attempts).toBe(3);
    expect(recovered.recoveryStartedNs).toBeGreaterThanOrEqual(beforeNs);
    expect(recovered.connectedNs).toBeGreaterThanOrEqual(recovered.recoveryStartedNs);
    expect(recovered.recoveredNs).toBeGreaterThanOrEqual(recovered.connectedNs);
    expect(recovered.recoveredNs).toBeLessThanOrEqual(nowNs());
    expect(connection.state).toBe('up');
    expect(connection.localPort).toBe(40002);
    // The probe went to the consumer of `q` (the second one), and it opened a plain publisher for it.
    expect(bodies).toEqual([expect.stringMatching(/^probe-\d+$/)]);
    await expect(connection.recoverWithProbe('not-consumed', 1000, 1000)).rejects.toThrow(/no consumer of not-consumed/);
  }, 30_000);

  it('version 1 (an older program): still driven, without `recover` (its recovery crosses the pipe)', async () => {
    const connection = (await connect()) as ProgramConnection;
    expect(connection.recoversInProgram).toBe(false);
    await connection.consume('q', { ack: 'auto' }, () => undefined);
    await expect(connection.recoverWithProbe('q', 1000, 1000)).rejects.toThrow(/speaks protocol 1, without recover/);
    connection.destroy('test');
    expect((await connection.ensureConnected(5000)).attempts).toBe(2);
  }, 30_000);

  it('a version this harness does not speak: ended at its hello, saying which versions it speaks', async () => {
    process.env.FIXTURE_PROTOCOL = '3';
    await expect(adapter.connect('defaults', { urls: URLS, startBoundMs: 5000 })).rejects.toThrow(
      /speaks protocol 3; this harness speaks 1 and 2 \(update amqp-bench, or have the program speak 2\)/,
    );
    expect(stderrLines.join('')).toMatch(/speaks protocol 3/);
  }, 30_000);
});

describe('a client program that misbehaves is ended, with its group, within its bound', () => {
  /** The one line said on stderr, and that the program's group is gone. */
  async function expectEnded(connection: ClientConnection, words: RegExp): Promise<void> {
    expect(await waitUntil(() => stderrLines.length > 0, 15_000)).toBe(true);
    expect(stderrLines).toHaveLength(1);
    expect(stderrLines[0]).toMatch(words);
    expect(stderrLines[0]!.trim().split('\n')).toHaveLength(1);
    expect(await waitUntil(() => !groupAlive(pidOf(connection)), 3000)).toBe(true);
  }

  it('one that crashes: its fault and every later call say so, with what it printed last', async () => {
    const connection = await connect('crash');
    const faults: string[] = [];
    connection.onFault((fault) => faults.push(`${fault.kind}: ${fault.message}`));
    const publisher = await connection.publisher({ confirms: false });
    await expect(publisher.publish('', 'q', Buffer.from('x'))).rejects.toThrow(/exited \(exit code 3\).*fixture: crashed on purpose/);
    await expectEnded(connection, /ended: .*exited \(exit code 3\).*last output: fixture: crashed on purpose/);
    expect(faults).toEqual([expect.stringMatching(/^error: .*crashed on purpose/)]);
    await expect(connection.ensureConnected(1000)).rejects.toThrow(/crashed on purpose/);
  }, 30_000);

  it('one that prints what is not the protocol', async () => {
    const connection = await connect('garbage');
    const publisher = await connection.publisher({ confirms: false });
    await expect(publisher.publish('', 'q', Buffer.from('x'))).rejects.toThrow(
      /printed a line that is not JSON: "this is not the protocol"/,
    );
    await expectEnded(connection, /not JSON: "this is not the protocol"/);
  }, 30_000);

  it('one that never answers', async () => {
    process.env.FIXTURE_MISBEHAVIOUR = 'never';
    const startedMs = performance.now();
    await expect(adapter.connect('defaults', { urls: URLS, startBoundMs: 500 })).rejects.toThrow(/did not answer connect within 5500 ms/);
    // Its bound (startBoundMs + the grace for an answer), not more.
    expect(performance.now() - startedMs).toBeLessThan(8000);
    expect(stderrLines.join('')).toMatch(/did not answer connect within 5500 ms/);
  }, 30_000);

  it('one that answers late', async () => {
    const connection = await connect('late');
    connection.destroy('test');
    const startedMs = performance.now();
    await expect(connection.ensureConnected(200)).rejects.toThrow(/did not answer ensure within 5200 ms/);
    expect(performance.now() - startedMs).toBeLessThan(8000);
    await expectEnded(connection, /did not answer ensure within 5200 ms/);
  }, 30_000);

  it('one that ignores a stop request (close, end of stdin, SIGTERM)', async () => {
    const connection = await connect('ignore-stop');
    const pid = pidOf(connection);
    const startedMs = performance.now();
    await connection.close();
    expect(performance.now() - startedMs).toBeLessThan(13_000);
    expect(await waitUntil(() => !groupAlive(pid), 3000)).toBe(true);
    expect(stderrLines.join('')).toMatch(/did not answer close within 10000 ms/);
  }, 30_000);

  it('one that leaves a child of its own behind when it dies: the child goes with its group', async () => {
    const connection = await connect('orphan');
    await expectEnded(connection, /exited \(exit code 3\)/);
  }, 30_000);
});
