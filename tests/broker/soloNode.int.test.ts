/**
 * Solo nodes on a real RabbitMQ: each start has a name, folder and ports of its own (two at once
 * in one process both serve), a node whose owner process is gone is swept at the next start, one
 * whose owner lives is not, a node whose owner is killed is ended by its reaper, and a port taken
 * before the node bound it makes the start try other ports.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import amqplib from 'amqplib';
import { freePortPair, markedProcesses, portAnswers, waitForExit } from '../../src/broker/nodes/processes';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { configuredSoloNode, SOLO_NODE, soloFolder } from '../../src/broker/nodes/soloIdentity';
import { startSoloNode, type SoloNode } from '../../src/broker/nodes/soloNode';
import { OWNER_FILE, readOwner, sweepSoloNodes, writeOwner } from '../../src/broker/nodes/soloOwner';
import { PROJECT_ROOT } from '../../src/config';

const settings = resolveClusterSettings();
const started: SoloNode[] = [];

afterAll(async () => {
  await Promise.all(started.map((solo) => solo.stop().catch(() => undefined)));
}, 60_000);

async function start(kind = SOLO_NODE): Promise<SoloNode> {
  const solo = await startSoloNode(settings, () => undefined, kind);
  started.push(solo);
  return solo;
}

/** Connects, declares a server-named queue, closes: the node serves AMQP. */
async function serves(url: string): Promise<boolean> {
  const connection = await amqplib.connect(url);
  try {
    const channel = await connection.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    return queue.startsWith('amq.gen-');
  } finally {
    await connection.close();
  }
}

/** The pid of a process that has ended (nothing reuses it within a test). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const shortOf = (solo: SoloNode) => solo.node.name.split('@')[0]!;

test('two nodes started at once in one process get names, folders and ports of their own, and both serve', async () => {
  const [plain, configured] = await Promise.all([start(), start(configuredSoloNode({ consumer_timeout: 60_000 }))]);
  expect(plain.node.name).toMatch(new RegExp(`^bench-solo-${process.pid}-\\d+@`));
  expect(configured.node.name).toMatch(new RegExp(`^bench-solo-conf-${process.pid}-\\d+@`));
  const ports = [plain.node.amqpPort, plain.node.distPort, configured.node.amqpPort, configured.node.distPort];
  expect(new Set(ports).size).toBe(4);
  expect(ports.some((port) => [5672, 5681, 5682, 5683, 5690, 5693, 15672, 25672].includes(port))).toBe(false);
  expect(await serves(plain.url)).toBe(true);
  expect(await serves(configured.url)).toBe(true);

  // Their owner (this process) lives: a sweep leaves both alone.
  expect(await sweepSoloNodes(settings)).not.toEqual(expect.arrayContaining([plain.node.name]));
  expect(plain.actions().running()).toBe(true);
  expect(configured.actions().running()).toBe(true);

  await Promise.all([plain.stop(), configured.stop()]);
  for (const solo of [plain, configured]) {
    expect(markedProcesses(solo.node)).toEqual([]);
    expect(await portAnswers(solo.node.amqpPort)).toBe(false);
    // Data gone; the folder (logs, owner file) stays until a sweep finds its owner gone.
    expect(fs.existsSync(solo.node.mnesiaBase)).toBe(false);
    expect(readOwner(soloFolder(settings, shortOf(solo)))?.node).toBe(solo.node.name);
  }
}, 60_000);

test('the sweep ends a node whose recorded owner is gone, and removes its folder', async () => {
  const solo = await start();
  const folder = soloFolder(settings, shortOf(solo));
  const owner = readOwner(folder);
  expect(owner).toMatchObject({ node: solo.node.name, owner_pid: process.pid });
  writeOwner(folder, { ...owner!, owner_pid: await deadPid() });
  const vm = markedProcesses(solo.node);
  expect(vm.length).toBeGreaterThan(0);

  expect(await sweepSoloNodes(settings)).toContain(solo.node.name);
  expect(markedProcesses(solo.node)).toEqual([]);
  expect(await portAnswers(solo.node.amqpPort)).toBe(false);
  expect(fs.existsSync(path.join(folder, OWNER_FILE))).toBe(false);
}, 60_000);

test('a node whose owner process is killed (SIGKILL: no handler runs) is ended by its reaper', async () => {
  // A process of its own starts the node, says its name, then waits to be killed.
  const program = `require(${JSON.stringify(path.join(PROJECT_ROOT, 'lib', 'register.js'))});
    const { startSoloNode } = require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'broker', 'nodes', 'soloNode.ts'))});
    const { resolveClusterSettings } = require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'broker', 'nodes', 'settings.ts'))});
    startSoloNode(resolveClusterSettings()).then((solo) => console.log(solo.node.name), (error) => { console.error(error); process.exit(3); });
    setInterval(() => undefined, 1000);`;
  const owner = spawn(process.execPath, ['-e', program], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const name = await new Promise<string>((resolve, reject) => {
      owner.stdout.setEncoding('utf8').on('data', (text: string) => resolve(text.trim()));
      owner.once('exit', (code) => reject(new Error(`owner exited with ${code} before its node ran`)));
    });
    expect(name).toMatch(new RegExp(`^bench-solo-${owner.pid}-1@`));
    const pids = markedProcesses({ name });
    expect(pids.length).toBeGreaterThan(0);

    owner.kill('SIGKILL');
    const gone = await Promise.all(pids.map((pid) => waitForExit(pid, 15_000)));
    expect(gone.every(Boolean)).toBe(true);
    expect(markedProcesses({ name })).toEqual([]);
  } finally {
    owner.kill('SIGKILL');
  }
}, 60_000);

test('a port taken between the choice and the bind: the node fails, and the start tries again on other ports', async () => {
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const taken = (squatter.address() as net.AddressInfo).port;
  const lines: string[] = [];
  const chosen: number[] = [];
  try {
    const solo = await startSoloNode(
      settings,
      (line) => lines.push(line),
      SOLO_NODE,
      async (reserved) => {
        const ports =
          chosen.length === 0 ? { amqpPort: taken, distPort: (await freePortPair(() => true)).distPort } : await freePortPair(() => true);
        expect(reserved.has(5672)).toBe(true);
        chosen.push(ports.amqpPort);
        return ports;
      },
    );
    started.push(solo);
    expect(chosen).toHaveLength(2);
    expect(solo.node.amqpPort).toBe(chosen[1]);
    expect(lines.some((line) => line.includes(`port ${taken}`) && line.includes('starting again on other ports'))).toBe(true);
    expect(await serves(solo.url)).toBe(true);
    await solo.stop();
  } finally {
    squatter.close();
  }
}, 60_000);
