/**
 * A solo node's identity: a name of its own per start, its files inside its own folder, ports
 * clear of the system broker's and the cluster's; and the owner file the sweep reads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { configuredSoloNode, portsUsable, reservedPorts, SOLO_NODE, soloLayout, soloShortName } from '../../src/broker/nodes/soloIdentity';
import { ownerAlive, OWNER_FILE, ownerRecord, readOwner, writeOwner } from '../../src/broker/nodes/soloOwner';

const settings = resolveClusterSettings({ BENCH_CLUSTER_DIR: '/tmp/bench-cluster-test' });
const reserved = reservedPorts(settings);

describe('solo node identity', () => {
  it('names a node after its kind, its owner pid and the owner count', () => {
    expect(soloShortName(SOLO_NODE, 4711, 2)).toBe('bench-solo-4711-2');
    expect(soloShortName(configuredSoloNode({ consumer_timeout: 3000 }), 4711, 1)).toBe('bench-solo-conf-4711-1');
  });

  it('keeps every file of the node, cookie included, inside its own folder under solo-nodes/', () => {
    const layout = soloLayout(settings, { short: 'bench-solo-4711-1', amqpPort: 40001, distPort: 40002 });
    const node = layout.nodes[0]!;
    const folder = '/tmp/bench-cluster-test/solo-nodes/bench-solo-4711-1';
    expect(layout.dir).toBe(folder);
    expect(node).toMatchObject({ name: 'bench-solo-4711-1@localhost', amqpPort: 40001, distPort: 40002 });
    for (const file of [layout.cookieFile, node.pidFile, node.mnesiaDir, node.consoleLog, node.configFile])
      expect(file.startsWith(`${folder}${path.sep}`)).toBe(true);
    expect(node.advancedConfig).toBeUndefined();
  });

  it('writes the rabbit settings of a configured node into its advanced.config', () => {
    const layout = soloLayout(settings, { short: 'x-1-1', amqpPort: 40001, distPort: 40002, rabbitSettings: { consumer_timeout: 3000 } });
    expect(layout.nodes[0]!.advancedConfig).toBe('[{rabbit,[{consumer_timeout,3000}]}].\n');
  });

  it('reserves the system broker ports, its CLI range and the cluster ports with theirs', () => {
    for (const port of [4369, 5672, 15672, 25672, 35672, 35682, 5681, 5683, 25681, 25683, 35681, 35693])
      expect(reserved.has(port)).toBe(true);
    expect(reserved.has(5690)).toBe(false);
    expect(reserved.has(35694)).toBe(false);
  });

  it('accepts two distinct free-looking ports whose CLI range fits', () => {
    expect(portsUsable({ amqpPort: 40001, distPort: 41000 }, reserved)).toBe(true);
  });

  it.each([
    ['the same port twice', { amqpPort: 40001, distPort: 40001 }],
    ['the system broker AMQP port', { amqpPort: 5672, distPort: 41000 }],
    ['a cluster distribution port', { amqpPort: 40001, distPort: 25682 }],
    ['a CLI range past 65535', { amqpPort: 40001, distPort: 55526 }],
    ['a CLI range over the AMQP port', { amqpPort: 51005, distPort: 41000 }],
    ['a CLI range over the system CLI ports', { amqpPort: 40001, distPort: 25670 }],
  ])('refuses %s', (_, ports) => {
    expect(portsUsable(ports, reserved)).toBe(false);
  });
});

describe('solo node owner file', () => {
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'solo-owner-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('records this process as the owner, with its start, and reads it back', () => {
    const owner = ownerRecord('bench-solo-1-1@localhost', new Date('2026-11-27T20:00:00Z'));
    expect(owner).toMatchObject({ node: 'bench-solo-1-1@localhost', owner_pid: process.pid, started_at: '2026-11-27T20:00:00.000Z' });
    expect(owner.owner_started).toMatch(/^\d+$/);
    writeOwner(folder, owner);
    expect(readOwner(folder)).toEqual(owner);
    expect(ownerAlive(owner)).toBe(true);
  });

  it('takes this pid with another process start for a gone owner (a pid reused)', () => {
    const owner = ownerRecord('bench-solo-1-1@localhost');
    expect(ownerAlive({ ...owner, owner_started: `${owner.owner_started}1` })).toBe(false);
  });

  it.each([
    ['no file', undefined],
    ['not JSON', '{'],
    ['no node', JSON.stringify({ owner_pid: 5, owner_started: '1' })],
    ['a pid that is no pid', JSON.stringify({ node: 'n@h', owner_pid: 0, owner_started: '1' })],
    ['a start that is no start', JSON.stringify({ node: 'n@h', owner_pid: 5, owner_started: 7 })],
  ])('reads %s as no owner record (the sweep leaves such a folder alone)', (_, content) => {
    if (content !== undefined) fs.writeFileSync(path.join(folder, OWNER_FILE), content);
    expect(readOwner(folder)).toBeUndefined();
  });
});
