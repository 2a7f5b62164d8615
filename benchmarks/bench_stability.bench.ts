/**
 * @benchmark @stress
 *
 * Stability under concurrency: chaos threads doing random drains, publishes, round trips and
 * connection kills while the proxy resets connections at random; and hundreds of back-to-back
 * kill/recover cycles. Asserted: no deadlock (every thread finishes within its bound), no
 * unexpected or unhandled error, no connection left on the broker afterwards.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { toxicResetPeer } from '../src/faults';
import { waitForNoConnections } from '../src/faults/brokerConnections';
import { sleep } from '../src/measure/clock';
import { mergeHistograms, encodeHistogram, summarizeMs } from '../src/measure/histogram';
import type { ClientSpec } from '../src/client/api';
import { QueueAdmin } from '../src/broker/queueAdmin';
import type { ChaosReport, ChaosTask } from '../src/stability/chaosThread';
import { settleWithin, startThreadPool } from '../src/workers/pool';
import { benchContext } from '../fixtures/context';
import { clientFields, forEachClient } from '../fixtures/clients';
import { formatMs, recordResult } from '../fixtures/record';

interface ChaosRun {
  readonly reports: ChaosReport[];
  readonly hung: number[];
  readonly rejected: string[];
  readonly leaked: string[];
  readonly leakSource: string;
  readonly durationMs: number;
  readonly proxyResets: number;
}

async function runChaos(
  client: ClientSpec,
  kind: ChaosTask['kind'],
  workers: number,
  iterations: number,
  injectResets: boolean,
): Promise<ChaosRun> {
  const context = benchContext();
  const connectionName = `amqp-bench-chaos-${randomUUID()}`;
  const boundMs = 60_000 + iterations * 200;
  // One queue per thread, the harness's (the client under test only publishes and consumes).
  const queues = Array.from({ length: workers }, (_, workerIndex) => `${connectionName}.${workerIndex}`);
  const admin = await QueueAdmin.open(context.directUrl);
  await Promise.all(queues.map((queue) => admin.declare(queue))).catch(async (error: unknown) => {
    await admin.close();
    throw error;
  });
  const pool = startThreadPool(path.join(__dirname, '../src/stability/chaosThread.ts'), workers);
  const startedAt = Date.now();
  let proxyResets = 0;
  let stopResets = false;
  // Random RSTs from the proxy on top of the threads' own kills.
  const resets = (async () => {
    while (injectResets && !stopResets) {
      await sleep(150 + Math.random() * 250);
      if (stopResets) break;
      const toxic = await toxicResetPeer(context.proxy, 0);
      await sleep(20);
      await toxic.remove();
      proxyResets += 1;
    }
  })();
  try {
    const tasks = Array.from({ length: workers }, (_, workerIndex) =>
      pool.run<ChaosTask, ChaosReport>({
        kind,
        workerIndex,
        client,
        url: context.proxiedUrl,
        connectionName: `${connectionName}-${workerIndex}`,
        queue: queues[workerIndex]!,
        iterations,
        seed: 1000 + workerIndex,
        recoverBoundMs: 15_000,
      }),
    );
    const settled = await settleWithin(tasks, boundMs);
    stopResets = true;
    await resets;
    const durationMs = Date.now() - startedAt;
    const leak = await waitForNoConnections(context.directUrl, connectionName, 10_000);
    return {
      reports: settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
      hung: settled.flatMap((result, index) => (result.status === 'hung' ? [index] : [])),
      rejected: settled.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
      leaked: leak.leaked,
      leakSource: leak.source,
      durationMs,
      proxyResets,
    };
  } finally {
    stopResets = true;
    await resets.catch(() => undefined);
    await pool.destroy();
    await admin.close();
  }
}

function assertStable(run: ChaosRun, workers: number): void {
  expect(run.hung).toEqual([]);
  expect(run.rejected).toEqual([]);
  expect(run.reports).toHaveLength(workers);
  expect(run.reports.flatMap((report) => report.unhandled)).toEqual([]);
  expect(run.reports.flatMap((report) => report.unexpectedErrors)).toEqual([]);
  expect(run.leaked).toEqual([]);
}

forEachClient((client) =>
  describe('TestRaceConditions', () => {
    test.each([[4, 300]])(
      'test_concurrent_chaos_workers[%ix%i]',
      async (workers, operations) => {
        const run = await runChaos(client, 'chaos', workers, operations, true);
        const total = (key: string) => run.reports.reduce((sum, report) => sum + (report.operations[key] ?? 0), 0);
        const recoveries = run.reports.reduce((sum, report) => sum + report.recoveries, 0);
        recordResult(
          {
            name: 'chaos_workers',
            parameters: { workers, operations_per_worker: operations, ...clientFields(client).parameters },
            client: clientFields(client).client,
            metrics: {
              duration_ms: { value: run.durationMs, unit: 'ms', direction: 'lower' },
              operations_total: { value: workers * operations, unit: 'count', direction: 'none' },
              kills: { value: total('kill'), unit: 'count', direction: 'none' },
              proxy_resets: { value: run.proxyResets, unit: 'count', direction: 'none' },
              recoveries: { value: recoveries, unit: 'count', direction: 'none' },
              unexpected_errors: {
                value: run.reports.reduce((sum, report) => sum + report.unexpectedErrors.length, 0),
                unit: 'count',
                direction: 'lower',
              },
              hung_workers: { value: run.hung.length, unit: 'count', direction: 'lower' },
              leaked_connections: { value: run.leaked.length, unit: 'count', direction: 'lower' },
            },
            notes: [`leak check through ${run.leakSource}`],
            details: {
              operations: { drain: total('drain'), publish: total('publish'), round_trip: total('round_trip'), kill: total('kill') },
            },
          },
          `${workers * operations} operations, ${total('kill')} kills + ${run.proxyResets} proxy RSTs, ${recoveries} recoveries, ` +
            `${run.hung.length} hung, ${run.leaked.length} leaked connections`,
        );
        assertStable(run, workers);
      },
      600_000,
    );

    test.each([[4, 75]])(
      'test_repeated_kill_recover_cycles[%ix%i]',
      async (workers, cycles) => {
        const run = await runChaos(client, 'cycles', workers, cycles, false);
        const histogram = mergeHistograms(run.reports.flatMap((report) => (report.cycleHistogram ? [report.cycleHistogram] : [])));
        const summary = summarizeMs(histogram);
        recordResult(
          {
            name: 'kill_recover_cycles',
            parameters: { workers, cycles_per_worker: cycles, ...clientFields(client).parameters },
            client: clientFields(client).client,
            metrics: {
              cycles_total: { value: summary.count, unit: 'count', direction: 'none' },
              cycle_p50_ms: { value: summary.p50, unit: 'ms', direction: 'lower' },
              cycle_p99_ms: { value: summary.p99, unit: 'ms', direction: 'lower' },
              cycle_max_ms: { value: summary.max, unit: 'ms', direction: 'lower' },
              hung_workers: { value: run.hung.length, unit: 'count', direction: 'lower' },
              leaked_connections: { value: run.leaked.length, unit: 'count', direction: 'lower' },
            },
            histograms: { cycle_latency: encodeHistogram(histogram) },
            notes: [
              'a cycle: the client kills its socket, notices, reconnects (ensureConnection) and proves it with a round trip',
              `leak check through ${run.leakSource}`,
            ],
          },
          `${summary.count} kill/recover cycles: p50 ${formatMs(summary.p50)}, p99 ${formatMs(summary.p99)}, max ${formatMs(summary.max)}; ${run.leaked.length} leaked`,
        );
        assertStable(run, workers);
        expect(summary.count).toBe(workers * cycles);
      },
      600_000,
    );
  }),
);
