/**
 * The benchmark cluster's layout and settings: every node apart from the system broker (its own
 * name, ports, files, cookie), settings validated with messages that say what to do, and the
 * CLI guard that cannot be pointed at a node outside the cluster.
 */
import path from 'node:path';
import {
  clusterLayout,
  nodeAmqpUrl,
  nodeConfigText,
  nodeEnvironment,
  nodeFiles,
  NODE_MARKER_VARIABLE,
} from '../../src/broker/nodes/layout';
import { runCli } from '../../src/broker/nodes/rabbitmqctl';
import { CLUSTER_DEFAULTS, resolveClusterSettings } from '../../src/broker/nodes/settings';
import { PROJECT_ROOT } from '../../src/config';

const settings = resolveClusterSettings({});
const layout = clusterLayout(settings);

describe('cluster settings', () => {
  it('defaults to .cluster in the project, AMQP 5681-5683, distribution 25681-25683, guest on loopback', () => {
    expect(settings).toEqual({
      dir: path.join(PROJECT_ROOT, '.cluster'),
      firstAmqpPort: 5681,
      firstDistPort: 25681,
      nodeHost: 'localhost',
      user: 'guest',
      password: 'guest',
      rabbitmqBinDir: CLUSTER_DEFAULTS.rabbitmqBinDir,
    });
  });

  it.each([
    [
      'BENCH_CLUSTER_AMQP_PORT',
      '5670',
      'BENCH_CLUSTER_AMQP_PORT must be a port from 1024 to 65000 whose next 2 ports are free for the other nodes',
    ],
    ['BENCH_CLUSTER_AMQP_PORT', 'abc', 'BENCH_CLUSTER_AMQP_PORT must be a port from 1024'],
    ['BENCH_CLUSTER_DIST_PORT', '25671', "not the system broker's 5672 or 25672"],
    [
      'BENCH_CLUSTER_DIST_PORT',
      '5682',
      'BENCH_CLUSTER_DIST_PORT must be a port range that does not overlap the AMQP ports 5681, 5682, 5683',
    ],
    ['BENCH_CLUSTER_HOST', 'bad host', 'BENCH_CLUSTER_HOST must be a host name (e.g. localhost); got "bad host"'],
  ])('refuses %s=%s', (variable, value, message) => {
    expect(() => resolveClusterSettings({ [variable]: value })).toThrow(message);
  });

  it('moves every port with the first one, and the folder with BENCH_CLUSTER_DIR', () => {
    const moved = clusterLayout(
      resolveClusterSettings({ BENCH_CLUSTER_AMQP_PORT: '6001', BENCH_CLUSTER_DIST_PORT: '26001', BENCH_CLUSTER_DIR: '/tmp/x' }),
    );
    expect(moved.nodes.map((node) => [node.amqpPort, node.distPort])).toEqual([
      [6001, 26001],
      [6002, 26002],
      [6003, 26003],
    ]);
    expect(moved.stateFile).toBe('/tmp/x/cluster.json');
  });
});

describe('cluster layout', () => {
  it('names three nodes bench-a/b/c@localhost, none of them the system broker, each with its own ports and folders', () => {
    expect(layout.nodes.map((node) => node.name)).toEqual(['bench-a@localhost', 'bench-b@localhost', 'bench-c@localhost']);
    const ports = layout.nodes.flatMap((node) => [node.amqpPort, node.distPort]);
    expect(new Set(ports).size).toBe(6);
    expect(ports).not.toContain(5672);
    expect(ports).not.toContain(25672);
    const folders = layout.nodes.flatMap((node) => [node.nodeDir, node.mnesiaDir, node.logDir, node.configFile, node.pidFile]);
    expect(new Set(folders).size).toBe(folders.length);
    for (const folder of folders) expect(folder.startsWith(`${settings.dir}${path.sep}`)).toBe(true);
  });

  it('gives each node a config that listens on its own port on loopback only', () => {
    for (const node of layout.nodes) {
      const text = nodeConfigText(node);
      expect(text).toContain(`listeners.tcp.1 = 127.0.0.1:${node.amqpPort}`);
      expect(text).not.toContain('5672');
    }
    expect(Object.keys(nodeFiles(layout.nodes[0]!)).sort()).toEqual(
      [
        layout.nodes[0]!.advancedConfigFile,
        layout.nodes[0]!.configFile,
        layout.nodes[0]!.enabledPluginsFile,
        layout.nodes[0]!.envFile,
      ].sort(),
    );
    expect(nodeFiles(layout.nodes[0]!)[layout.nodes[0]!.enabledPluginsFile]).toBe('[].\n');
  });

  it("replaces whatever the parent set for the system broker (RABBITMQ_*, ERL_*, HOME) with the node's own", () => {
    const node = layout.nodes[1]!;
    const env = nodeEnvironment(layout, node, {
      PATH: '/usr/bin',
      HOME: '/var/lib/rabbitmq',
      RABBITMQ_NODENAME: 'rabbit@localhost',
      RABBITMQ_NODE_PORT: '5672',
      ERL_FLAGS: '-setcookie x',
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      HOME: layout.homeDir,
      RABBITMQ_NODENAME: 'bench-b@localhost',
      RABBITMQ_CONFIG_FILE: node.configFile,
      RABBITMQ_CONF_ENV_FILE: node.envFile,
      RABBITMQ_DIST_PORT: '25682',
      RABBITMQ_MNESIA_DIR: node.mnesiaDir,
      RABBITMQ_LOG_BASE: node.logDir,
      RABBITMQ_PID_FILE: node.pidFile,
      RABBITMQ_ENABLED_PLUGINS_FILE: node.enabledPluginsFile,
      [NODE_MARKER_VARIABLE]: 'bench-b@localhost',
    });
    expect(env.RABBITMQ_NODE_PORT).toBeUndefined();
    expect(env.ERL_FLAGS).toBeUndefined();
    expect(layout.cookieFile).toBe(path.join(layout.homeDir, '.erlang.cookie'));
  });

  it('builds direct node URLs with the cluster login', () => {
    expect(nodeAmqpUrl(layout.nodes[2]!, { user: 'bench', password: 'p@ss' })).toBe('amqp://bench:p%40ss@127.0.0.1:5683');
  });
});

describe('cluster CLI guard', () => {
  it('refuses to run a CLI tool against a node that is not in the cluster (the system broker above all)', () => {
    const system = { ...layout.nodes[0]!, name: 'rabbit@localhost' };
    expect(() => runCli(layout, system, 'rabbitmqctl', ['stop_app'], 1000)).toThrow(
      'refusing to run rabbitmqctl against rabbit@localhost: not a node of the benchmark cluster',
    );
  });
});
