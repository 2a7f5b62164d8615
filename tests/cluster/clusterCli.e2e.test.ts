/**
 * `bench cluster status | up | down` as subprocesses, without a cluster: every case points
 * BENCH_CLUSTER_DIR at a temp folder (and the ports elsewhere), so nothing here can touch a
 * running benchmark cluster or the system broker. Starting real nodes is the failover
 * benchmarks' business (`npm run cluster:up`), not `npm test`'s.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../results/helpers';

const execFileAsync = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/bench.js');

function bench(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return execFileAsync('node', [BIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('bench cluster (no cluster needed)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = tempDir('cluster-cli');
    env = { BENCH_CLUSTER_DIR: dir, BENCH_CLUSTER_AMQP_PORT: '6781', BENCH_CLUSTER_DIST_PORT: '26781' };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('status: every node not running, one line saying how to start it, exit code 1', async () => {
    const status = await bench(['cluster', 'status'], env);
    expect(status.code).toBe(1);
    expect(status.stdout.split('\n').filter(Boolean)).toEqual([
      'cluster: bench-a@localhost  AMQP 127.0.0.1:6781  dist 26781  not running',
      'cluster: bench-b@localhost  AMQP 127.0.0.1:6782  dist 26782  not running',
      'cluster: bench-c@localhost  AMQP 127.0.0.1:6783  dist 26783  not running',
      `cluster: down: no benchmark cluster is up (no ${path.join(dir, 'cluster.json')}); start one with \`npm run cluster:up\``,
    ]);
  });

  it('up without RabbitMQ installed: one line saying what to install, nothing started', async () => {
    const up = await bench(['cluster', 'up'], { ...env, BENCH_CLUSTER_SBIN: path.join(dir, 'no-rabbitmq') });
    expect(up.code).toBe(2);
    expect(up.stderr.trim()).toBe(
      `bench: ${path.join(dir, 'no-rabbitmq', 'rabbitmq-server')} not found: install Debian's rabbitmq-server (apt-get install rabbitmq-server), or set BENCH_CLUSTER_SBIN to the folder holding RabbitMQ's scripts`,
    );
    expect(fs.existsSync(path.join(dir, 'nodes'))).toBe(false);
  });

  it('up with a port taken: one line naming the port and the node, nothing started', async () => {
    const fakeBin = path.join(dir, 'bin');
    fs.mkdirSync(fakeBin);
    fs.writeFileSync(path.join(fakeBin, 'rabbitmq-server'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(6782, '127.0.0.1', resolve));
    try {
      const up = await bench(['cluster', 'up'], { ...env, BENCH_CLUSTER_SBIN: fakeBin });
      expect(up.code).toBe(2);
      expect(up.stderr.trim()).toBe(
        'bench: port 6782 (AMQP of bench-b@localhost) is already taken; free it, or move the cluster with BENCH_CLUSTER_AMQP_PORT / BENCH_CLUSTER_DIST_PORT',
      );
      expect(fs.existsSync(path.join(dir, 'nodes'))).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('down with nothing running: says so, exit code 0', async () => {
    const down = await bench(['cluster', 'down'], env);
    expect(down.code).toBe(0);
    expect(down.stdout.trim()).toBe('cluster: no node was running; data removed');
  });

  it('refuses a cluster port that would collide with the system broker', async () => {
    const bad = await bench(['cluster', 'status'], { ...env, BENCH_CLUSTER_AMQP_PORT: '5671' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('BENCH_CLUSTER_AMQP_PORT must be a port from 1024 to 65000');
  });
});
