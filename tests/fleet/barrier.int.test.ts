/**
 * The start barrier through the real broker: a coordinator and two agents (in this process, each
 * with its own connections) meet on the run's control exchange; both start at the coordinator's
 * one monotonic instant, run their shares and deliver, and the merge is the whole workload. An
 * agent that arrives after the start does not run and is named late; the run's control exchange
 * and queues are gone afterwards.
 */
import { getConfig } from '../../src/config';
import { runAgent, type AgentOptions } from '../../src/fleet/agent';
import { coordinateFleet } from '../../src/fleet/coordinator';
import { mergeFleet } from '../../src/fleet/merge';
import { controlExchange, inboxOf, newRunId } from '../../src/fleet/protocol';
import { QueueAdmin } from '../../src/broker/queueAdmin';
import { workloadOf } from './agentFiles';

jest.setTimeout(90_000);

const config = getConfig();
const quiet = () => undefined;

function agentOptions(runId: string, index: number, workload: AgentOptions['workload']): AgentOptions {
  return {
    runId,
    index,
    count: 2,
    workload,
    config,
    viaProxy: false,
    intervalMs: 250,
    catchUpMs: 3000,
    drainMs: 5000,
    barrier: { mode: 'coordinator', boundMs: 20_000 },
    log: quiet,
  };
}

/** Whether `name` still exists on the broker (a passive declare answers 404 otherwise). */
async function exists(kind: 'queue' | 'exchange', name: string): Promise<boolean> {
  const admin = await QueueAdmin.open(config.amqpUrl);
  try {
    return await admin.exists(kind, name);
  } finally {
    await admin.close();
  }
}

test('two agents pass the barrier at one instant, run their shares and merge into the whole workload', async () => {
  const runId = newRunId();
  const workload = workloadOf({
    producers: 2,
    consumers: 2,
    queues: 2,
    rate: 400,
    duration: '2s',
    confirm_window: 20,
    queue_pattern: `bench-fleet-int-${runId}-%d`,
  });
  const coordinating = coordinateFleet({
    runId,
    count: 2,
    workload,
    amqpUrl: config.amqpUrl,
    barrierBoundMs: 20_000,
    runBoundMs: 30_000,
    silenceBoundMs: 10_000,
    log: quiet,
  });
  const files = await Promise.all([runAgent(agentOptions(runId, 0, workload)), runAgent(agentOptions(runId, 1, workload))]);
  const run = await coordinating;
  expect(files.map((file) => file.status)).toEqual(['completed', 'completed']);
  expect(run.absent).toEqual([]);
  expect(run.files.map((file) => file.agent.index)).toEqual([0, 1]);
  // One machine: both started at the coordinator's monotonic instant.
  expect(files.map((file) => file.barrier.start_clock)).toEqual(['monotonic', 'monotonic']);
  expect(Math.abs(files[0].barrier.started_at_unix_ms! - files[1].barrier.started_at_unix_ms!)).toBeLessThan(5);
  for (const file of files) expect(file.barrier.ready_at_unix_ms!).toBeLessThan(file.barrier.start_at_unix_ms!);
  const merged = mergeFleet({ runId, agentCount: 2, workload, files: run.files, absent: run.absent });
  expect(merged.messages.intended).toBe(800);
  expect(merged.messages.published).toBe(800);
  expect(merged.messages.consumed_unique).toBe(800);
  expect(merged.messages.lost_confirmed).toBe(0);
  expect(merged.achieved_fraction).toBeGreaterThan(0.99);
  expect(merged.fleet.agents.map((row) => row.intended_rate_per_s)).toEqual([200, 200]);
  // The run's control exchange, inboxes and workload queues are gone.
  expect(await exists('exchange', controlExchange(runId))).toBe(false);
  expect(await exists('queue', inboxOf(runId, 0))).toBe(false);
  expect(await exists('queue', `bench-fleet-int-${runId}-1`)).toBe(false);
});

test('an agent that reaches the barrier after the start does not run, and is named late', async () => {
  const runId = newRunId();
  const workload = workloadOf({
    producers: 2,
    consumers: 2,
    queues: 2,
    rate: 200,
    duration: '2s',
    queue_pattern: `bench-fleet-int-${runId}-%d`,
  });
  const lines: string[] = [];
  const coordinating = coordinateFleet({
    runId,
    count: 2,
    workload,
    amqpUrl: config.amqpUrl,
    barrierBoundMs: 3000,
    runBoundMs: 30_000,
    silenceBoundMs: 10_000,
    log: (line) => lines.push(line),
  });
  const onTime = runAgent(agentOptions(runId, 0, workload));
  // Agent 1 comes once the coordinator has started without it.
  while (!lines.some((line) => /start with 1 of 2/.test(line))) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 1600));
  const late = await runAgent(agentOptions(runId, 1, workload));
  const [first, run] = await Promise.all([onTime, coordinating]);
  expect(first.status).toBe('completed');
  expect(late.status).toBe('late');
  expect(late.error).toMatch(/the start was \d+ ms past when this agent was ready: it did not run/);
  expect(late.result).toBeNull();
  const merged = mergeFleet({ runId, agentCount: 2, workload, files: run.files, absent: run.absent });
  expect(merged.fleet.absent).toHaveLength(1);
  expect(merged.fleet.absent[0]!.agent).toBe(1);
  expect(merged.fleet.absent[0]!.reason).toMatch(/late: the start was|not ready within the barrier's bound \(3 s\)/);
  expect(merged.achieved_fraction).toBeLessThan(0.6);
});
