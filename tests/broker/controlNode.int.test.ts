/**
 * The long-lived control node that closes the harness's connections on the shared broker without
 * a rabbitmqctl per call: it closes by name as rabbitmqctl did, answers fast once started, falls
 * back to rabbitmqctl when it cannot reach the node, and never outlives the process that started it.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { sharedBrokerActions, systemRabbitmqctl } from '../../src/broker/actions';
import {
  closeSharedControlNode,
  controlNodeCommand,
  readBrokerCookie,
  sharedControlRunner,
  startControlNode,
} from '../../src/broker/controlNode';
import { BrokerError } from '../../src/errors';
import { getConfig } from '../../src/config';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitGone(pid: number, boundMs: number): Promise<boolean> {
  for (const deadline = Date.now() + boundMs; Date.now() < deadline;) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !alive(pid);
}

afterAll(() => closeSharedControlNode());

describe('control node (real broker)', () => {
  it('closes only the connections named with the prefix, each call after the first well under a rabbitmqctl start', async () => {
    const { amqpUrl } = getConfig();
    const prefix = `bench-test-ctl-${randomUUID()}`;
    const other = await amqp.connect(amqpUrl, { clientProperties: { connection_name: `bench-test-other-${randomUUID()}` } });
    const actions = sharedBrokerActions(amqpUrl);
    try {
      const timings: number[] = [];
      for (let call = 0; call < 3; call += 1) {
        const named = await amqp.connect(amqpUrl, { clientProperties: { connection_name: `${prefix}.${call}` } });
        named.on('error', () => undefined);
        const closed = new Promise<void>((resolve) => named.once('close', () => resolve()));
        const started = Date.now();
        await expect(actions.closeConnections(prefix, 'test close')).resolves.toEqual([`${prefix}.${call}`]);
        timings.push(Date.now() - started);
        await closed;
      }
      // rabbitmqctl takes over a second a call on two cores; the control node a few ms once up.
      expect(Math.max(...timings.slice(1))).toBeLessThan(500);
      // The other connection is untouched.
      const channel = await other.createChannel();
      await channel.close();
    } finally {
      await actions.close();
      await other.close().catch(() => undefined);
    }
  }, 60_000);

  it('reports an expression that fails on the node as rabbitmqctl would, and keeps serving', async () => {
    const node = await startControlNode('rabbit@localhost');
    try {
      await expect(node.evaluate('erlang:error(boom).', 5000)).rejects.toThrow(/eval on the broker node failed: .*boom/);
      await expect(node.evaluate('1 + 1.', 5000)).resolves.toBe('2');
      await expect(node.evaluate('a.\nb.', 5000)).rejects.toThrow(BrokerError);
    } finally {
      node.close();
    }
    expect(await waitGone(node.pid!, 5000)).toBe(true);
  }, 30_000);

  it('falls back to the given runner when no control node can reach the target', async () => {
    await expect(startControlNode('nobody@localhost')).rejects.toThrow(/did not reach nobody@localhost/);
    const calls: string[][] = [];
    const runner = sharedControlRunner('nobody@localhost', async (args) => {
      calls.push([...args]);
      return '["fallback"]';
    });
    await expect(runner(['eval', '[].'], 5000)).resolves.toBe('["fallback"]');
    expect(calls).toEqual([['eval', '[].']]);
    closeSharedControlNode();
  }, 30_000);

  it('halts when the process that started it dies (its input ends)', async () => {
    const cookie = readBrokerCookie();
    expect(cookie).toBeDefined();
    const command = controlNodeCommand('rabbit@localhost', cookie!);
    // A parent that starts the node, says its pid once it is ready, then is killed without cleaning up.
    const parentScript = `
      const { spawn } = require('node:child_process');
      const node = spawn(${JSON.stringify(command.file)}, ${JSON.stringify(command.args)}, { env: { ...process.env, AMQP_BENCH_CONTROL_TARGET: 'rabbit@localhost' }, stdio: ['pipe', 'pipe', 'inherit'] });
      node.stdout.once('data', (line) => console.log(node.pid + ' ' + String(line).trim()));
      setInterval(() => undefined, 1000);`;
    const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    const said = await new Promise<string>((resolve) => parent.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
    const [pid, state] = said.split(' ');
    expect(state).toBe('ready');
    expect(alive(Number(pid))).toBe(true);
    parent.kill('SIGKILL');
    expect(await waitGone(Number(pid), 10_000)).toBe(true);
  }, 30_000);

  it('is what the system rabbitmqctl would have answered for the same expression', async () => {
    const expression = 'lists:sort([atom_to_list(node())]).';
    const viaNode = await sharedControlRunner('rabbit@localhost', systemRabbitmqctl)(['eval', expression], 10_000);
    const viaCli = await systemRabbitmqctl(['eval', expression], 30_000);
    expect(viaNode.trim()).toBe(viaCli.trim());
  }, 60_000);
});
