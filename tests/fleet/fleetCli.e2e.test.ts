/**
 * `bench load --agents N` as a user runs it: N agent processes on this machine and their
 * coordinator, against the real broker through the embedded fault proxy (one entry per agent).
 * A whole run merges every agent and records the run; an agent killed mid-run is named by the
 * coordinator, which still finishes within its bound, merges the others and exits 1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';
import { killGroup, startBench, type BenchProcess } from '../support/benchProcess';

let tmp: string;
let proxyPort: number;
const running: BenchProcess[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-fleet-'));
  proxyPort = await freePort();
});
afterEach(async () => {
  for (const run of running.splice(0)) await killGroup(run);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function fleet(name: string, args: readonly string[]): BenchProcess {
  const run = startBench(['load', ...args, '--name', name, '-o', path.join(tmp, name), '--interval', '500ms'], {
    BENCH_REPORTS_DIR: path.join(tmp, 'reports'),
    // An embedded proxy of this test's own, on a free port (never 8474, where others may run one).
    TOXIPROXY_URL: `http://127.0.0.1:${proxyPort}`,
  });
  running.push(run);
  return run;
}

interface ResultFile {
  readonly achieved_fraction: number;
  readonly messages: { readonly published: number; readonly consumed_unique: number; readonly lost_confirmed: number | null };
  readonly fleet: {
    readonly agents_merged: number;
    readonly absent: readonly { readonly agent: number; readonly reason: string }[];
    readonly agents: readonly { readonly agent: number; readonly status: string }[];
    readonly end_to_end: string;
  };
}

const resultOf = (name: string) => JSON.parse(fs.readFileSync(path.join(tmp, name, 'result.json'), 'utf8')) as ResultFile;

test('3 agents merge into one result, one row each, recorded like any run', async () => {
  const run = fleet('fleet_e2e', ['-x', '3', '-y', '3', '--queues', '3', '--rate', '600', '--duration', '3s', '-c', '20', '--agents', '3']);
  const code = await run.exited;
  expect(run.output()).toMatch(/fleet fleet-\S+: 3 of 3 agent\(s\) merged/);
  expect(code).toBe(0);
  const result = resultOf('fleet_e2e');
  expect(result.fleet.agents_merged).toBe(3);
  expect(result.fleet.absent).toEqual([]);
  expect(result.fleet.end_to_end).toBe('merged');
  expect(result.messages.published).toBe(1800);
  expect(result.messages.consumed_unique).toBe(1800);
  expect(result.messages.lost_confirmed).toBe(0);
  expect(result.achieved_fraction).toBeGreaterThan(0.99);
  for (const index of [0, 1, 2]) expect(fs.existsSync(path.join(tmp, 'fleet_e2e', 'agents', `agent-${index}.json`))).toBe(true);
  expect(fs.readdirSync(path.join(tmp, 'reports')).some((file) => /^run_.*\.json$/.test(file))).toBe(true);
  expect(fs.readFileSync(path.join(tmp, 'fleet_e2e', 'report.md'), 'utf8')).toMatch(/Fleet/);
});

test('an agent killed mid-run: the coordinator finishes within its bound, names it, merges the others and exits 1', async () => {
  const startedMs = Date.now();
  const run = fleet('fleet_lost', ['-x', '3', '-y', '3', '--queues', '3', '--rate', '600', '--duration', '8s', '--agents', '3']);
  // The agents' pids, then the start.
  let pids: number[] = [];
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const found = /agent process\(es\) started \(pids ([\d, ]+)\)/.exec(run.output());
    if (found) pids = found[1]!.split(', ').map(Number);
    if (pids.length > 0 && /fleet: start with 3 of 3/.test(run.output())) break;
  }
  expect(pids).toHaveLength(3);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  process.kill(pids[1]!, 'SIGKILL');
  const killedMs = Date.now();
  const code = await run.exited;
  // The schedule had about 5 s left; the coordinator knows at once that the process is gone.
  expect(Date.now() - killedMs).toBeLessThan(45_000);
  expect(code).toBe(1);
  expect(run.output()).toMatch(/MISSING agent 1: exited with SIGKILL/);
  const result = resultOf('fleet_lost');
  expect(result.fleet.agents_merged).toBe(2);
  expect(result.fleet.absent).toEqual([{ agent: 1, reason: expect.stringMatching(/^exited with SIGKILL/) }]);
  expect(result.messages.lost_confirmed).toBeNull();
  expect(result.achieved_fraction).toBeLessThan(0.7);
  expect(Date.now() - startedMs).toBeLessThan(150_000);
});
