/**
 * `bench herd` as a user runs it, small: 12 connections of amqplib's own recovery over 3 agent
 * processes, closed at once by the broker (by name: the harness's own connections only). Every
 * connection consumes again; the broker side saw at least one attempt per connection, each agent's
 * on its own proxy entry; the report and its chart are written; nothing of the herd is left on the
 * broker. A herd this small stays on the shared broker, its sockets limit read first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { killGroup, startBench, type BenchProcess } from '../support/benchProcess';

let tmp: string;
const running: BenchProcess[] = [];
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'amqp-bench-herd-'));
});
afterEach(async () => {
  for (const run of running.splice(0)) await killGroup(run);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface HerdJson {
  readonly runId: string;
  readonly broker: { readonly kind: string; readonly room: { readonly socketsLimit: number } };
  readonly merged: {
    readonly connections: number;
    readonly attempts: number;
    readonly neverBack: number;
    readonly allBackMs: number | null;
    readonly peakShare: number;
    readonly attemptMomentsMs: { readonly first: number; readonly p10: number; readonly p90: number; readonly last: number } | null;
  };
  readonly burstShare: number;
  readonly findings: readonly string[];
  readonly agents: readonly { readonly agent: number; readonly figures: { readonly connections: number; readonly attempts: number } }[];
  readonly absent: readonly unknown[];
}

test('12 connections over 3 agents, closed by the broker at once, all consume again', async () => {
  const run = startBench(
    [
      'herd',
      '--connections',
      '12',
      '--agents',
      '3',
      '--clients',
      'amqplib-recovery:defaults',
      '--bound',
      '30s',
      '-o',
      path.join(tmp, 'herd'),
    ],
    {
      BENCH_REPORTS_DIR: path.join(tmp, 'reports'),
    },
  );
  running.push(run);
  const code = await run.exited;
  expect(run.output()).toMatch(
    /amqplib-recovery:defaults: \d+ attempts \(0 failed\), peak \d+ per 100 ms at [\d.]+ s, middle 80 % of attempts within \d+ ms, all back [\d.]+ s after the drop/,
  );
  expect(code).toBe(0);
  const [herd] = JSON.parse(fs.readFileSync(path.join(tmp, 'herd', 'herd.json'), 'utf8')) as HerdJson[];
  expect(herd!.merged.connections).toBe(12);
  // A herd this small stays on the shared broker (its sockets limit read first, and taking it).
  expect(herd!.broker.kind).toBe('shared');
  expect(herd!.broker.room.socketsLimit).toBeGreaterThan(100);
  expect(herd!.merged.neverBack).toBe(0);
  expect(herd!.merged.attempts).toBeGreaterThanOrEqual(12);
  expect(herd!.absent).toEqual([]);
  expect(herd!.agents.map((each) => each.figures.connections)).toEqual([4, 4, 4]);
  for (const each of herd!.agents) expect(each.figures.attempts).toBeGreaterThanOrEqual(4);
  // When the attempts came, and a burst named exactly when the peak is above the stated share.
  const moments = herd!.merged.attemptMomentsMs!;
  expect(moments.first).toBeLessThanOrEqual(moments.p10);
  expect(moments.p90).toBeLessThanOrEqual(moments.last);
  expect(herd!.burstShare).toBe(0.5);
  expect(herd!.findings.some((finding) => /^attempts came as one burst: \d+ of 12 connections/.test(finding))).toBe(
    herd!.merged.peakShare > herd!.burstShare,
  );
  const report = fs.readFileSync(path.join(tmp, 'herd', 'report.md'), 'utf8');
  expect(report).toMatch(/Reconnect herd: 12 connections over 3 agent processes/);
  expect(report).toMatch(
    /Broker: the shared broker \(the shared broker has room \(\d+ sockets, \d+ connections open; the herd needs 67\)\)/,
  );
  expect(report).toMatch(/- amqplib-recovery:defaults: `[▁▂▃▄▅▆▇█ ]+`.* peak \d+/);
  expect(report).toMatch(/### Findings/);
  expect(fs.existsSync(path.join(tmp, 'herd', 'herd.svg'))).toBe(true);
  // Nothing of the herd is left on the broker: no queue of its run.
  const queues = execFileSync('rabbitmqctl', ['-q', 'list_queues', 'name'], { encoding: 'utf8' });
  expect(queues).not.toContain(`bench-herd-${herd!.runId}`);
});
