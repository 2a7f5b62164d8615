/**
 * Failover metrics from what the threads recorded (exact values on tiny inputs), the shared
 * board's outage bookkeeping, and the cluster's availability as a test file sees it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FaultHit } from '../../src/faults/model';
import { CauseCode, FailoverBoard, FailoverWord, MAX_EPISODES, type ThreadEpisodes } from '../../src/cluster/failoverBoard';
import { clusterLayout } from '../../src/broker/nodes/layout';
import { computeFailoverMetrics, hitBefore } from '../../src/cluster/metrics';
import type { ConsumerRecord, FailoverOutcome } from '../../src/cluster/scenario';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { clusterAvailability, writeClusterState } from '../../src/broker/nodes/state';
import { undeliveredConfirmed, unfinishedEpisodes } from '../../src/cluster/waits';
import { tempDir } from '../results/helpers';

const MS = 1_000_000n;
const T0 = 1_000_000_000n;
const at = (ms: number) => T0 + BigInt(ms) * MS;

const kill: FaultHit = { target: 'bench-a@localhost', action: 'kill', atNs: at(0), bracket: { startedNs: at(0), completedNs: at(2) } };

function consumer(threadIndex: number, nodeAtFault: string, episodes: ThreadEpisodes['episodes'], lastMessageMs = 9500): ConsumerRecord {
  return {
    threadIndex,
    homeNode: nodeAtFault,
    nodeAtFault,
    readyNs: at(-5000),
    lastMessageNs: at(lastMessageMs),
    messages: 100,
    messagesAfterInjection: lastMessageMs > 0 ? 10 : 0,
    firstPort: 40000 + threadIndex,
    droppedEpisodes: 0,
    episodes,
    report: { threadIndex, falseAlarms: 0, foreign: 0 },
  };
}

function outcome(overrides: Partial<FailoverOutcome> = {}): FailoverOutcome {
  // seq 0..3 published and confirmed; seq 3 never delivered; seq 1 delivered twice (published twice).
  const ledger = { published: [1, 2, 1, 1], confirmed: [1, 1, 1, 1], delivered: [1, 2, 1, 0], redelivered: [0, 0, 0, 0] };
  return {
    queue: 'q',
    queueType: 'quorum',
    fault: 'node_kill',
    queueHolder: 'bench-a@localhost',
    target: 'bench-a@localhost',
    hits: [kill],
    steps: [{ target: 'bench-a@localhost', step: 'restart', bracket: { startedNs: at(1000), completedNs: at(9000) } }],
    injectedNs: at(-1),
    restore: { startedNs: at(1000), completedNs: at(9000) },
    consumers: [
      consumer(0, 'bench-a@localhost', [
        { detectedNs: at(20), cause: CauseCode.closed, reconnectedNs: at(400), firstMessageNs: at(410), portAfter: 50000 },
      ]),
      consumer(1, 'bench-b@localhost', []),
      consumer(2, 'bench-a@localhost', [
        { detectedNs: at(40), cause: CauseCode.reset, reconnectedNs: at(500), firstMessageNs: at(530), portAfter: 50001 },
      ]),
      // Nothing after the restore (completed at 9000 ms): stalled.
      consumer(3, 'bench-c@localhost', [], 8000),
    ],
    nodeByPort: new Map([
      [50000, 'bench-b@localhost'],
      [50001, 'bench-a@localhost'],
    ]),
    producer: {
      readyNs: at(-5000),
      lastMessageNs: at(9000),
      messages: 4,
      messagesAfterInjection: 2,
      firstPort: 0,
      droppedEpisodes: 0,
      episodes: [],
      report: null,
    },
    ledger,
    sequences: 4,
    readyLeft: 0,
    ratePerSecond: 200,
    silenceDeadlineMs: null,
    problems: [],
    ...overrides,
  };
}

describe('computeFailoverMetrics', () => {
  const computed = computeFailoverMetrics(outcome());

  it('times detection and failover of each hit thread from the kill, and counts who failed over where', () => {
    expect(computed.samples.thread_detection_ms).toEqual([20, 40]);
    expect(computed.samples.thread_failover_ms).toEqual([410, 530]);
    expect(computed.samples.thread_failover_after_detection_ms).toEqual([390, 490]);
    expect(computed.metrics).toMatchObject({
      threads_total: { value: 4 },
      threads_on_failed_node: { value: 2 },
      threads_hit: { value: 2 },
      threads_failed_over: { value: 2 },
      // Thread 2 came back to the failed node itself (restarted by then): not a failover to a survivor.
      threads_failed_over_to_survivor: { value: 1 },
      threads_stalled: { value: 1 },
      thread_detection_p50_ms: { value: 30, unit: 'ms' },
      thread_failover_max_ms: { value: 530, unit: 'ms' },
      node_restart_ms: { value: 8000 },
    });
  });

  it('accounts messages against what the broker confirmed', () => {
    expect(computed.metrics).toMatchObject({
      messages_published: { value: 4 },
      messages_confirmed: { value: 4 },
      messages_republished: { value: 1 },
      messages_lost: { value: 1 },
      messages_duplicated: { value: 1 },
      duplicates_unexplained: { value: 0 },
    });
    expect(computed.targets.find((target) => target.metric === 'messages_lost')).toMatchObject({
      met: false,
      threshold: 1,
      comparator: '<',
    });
    expect((computed.details as { lost_seqs: number[] }).lost_seqs).toEqual([3]);
  });

  it('leaves out outages from before the injection, and leaves failover null when no message came after one', () => {
    const early = outcome({
      consumers: [
        consumer(0, 'bench-a@localhost', [
          { detectedNs: at(-500), cause: CauseCode.closed, reconnectedNs: at(-400), firstMessageNs: at(-390), portAfter: 0 },
          { detectedNs: at(15), cause: CauseCode.closed, reconnectedNs: null, firstMessageNs: null, portAfter: 0 },
        ]),
      ],
    });
    const metrics = computeFailoverMetrics(early);
    expect(metrics.samples.thread_detection_ms).toEqual([15]);
    expect(metrics.samples.thread_failover_ms).toEqual([]);
    expect(metrics.metrics.threads_failed_over!.value).toBe(0);
    expect(metrics.metrics.thread_failover_p50_ms!.value).toBeNull();
  });

  it('times each outage of a rolling restart from the latest stop before it', () => {
    const stop = (node: string, ms: number): FaultHit => ({
      target: node,
      action: 'stop',
      atNs: at(ms),
      bracket: { startedNs: at(ms), completedNs: at(ms + 900) },
    });
    const hits = [stop('bench-a@localhost', 0), stop('bench-b@localhost', 10_000)];
    expect(hitBefore(hits, at(10_500))?.target).toBe('bench-b@localhost');
    expect(hitBefore(hits, at(9_999))?.target).toBe('bench-a@localhost');
    expect(hitBefore(hits, at(-1))).toBeUndefined();
  });
});

describe('FailoverBoard', () => {
  it('opens an outage on a fault, and ends it with the first message the caller says is from the new connection', () => {
    const board = new FailoverBoard(2);
    board.recordMessage(0, at(1));
    board.openEpisode(0, at(10), CauseCode.reset);
    expect(board.waitingForFirstMessage(0)).toBe(true);
    board.recordMessage(0, at(11), false); // still the old connection's
    board.markReconnected(0, at(20), 41234);
    board.raise(FailoverWord.INJECTED);
    board.recordMessage(0, at(25));
    board.recordMessage(0, at(26));
    expect(board.waitingForFirstMessage(0)).toBe(false);
    expect(board.read(0)).toMatchObject({
      messages: 4,
      messagesAfterInjection: 2,
      episodes: [{ detectedNs: at(10), cause: CauseCode.reset, reconnectedNs: at(20), firstMessageNs: at(25), portAfter: 41234 }],
    });
    expect(board.read(1).episodes).toEqual([]);
  });

  it('counts outages beyond its slots instead of overwriting them', () => {
    const board = new FailoverBoard(1);
    for (let n = 0; n < MAX_EPISODES + 2; n += 1) board.openEpisode(0, at(n), CauseCode.closed);
    expect(board.read(0).episodes).toHaveLength(MAX_EPISODES);
    expect(board.read(0).droppedEpisodes).toBe(2);
  });

  it('tells the scenario which threads still wait, and which confirmed messages nobody has seen', () => {
    const board = new FailoverBoard(3);
    board.openEpisode(1, at(5), CauseCode.closed);
    expect(unfinishedEpisodes(board, 3, [0])).toEqual([0, 1]);
    board.recordMessage(1, at(6));
    expect(unfinishedEpisodes(board, 3, [])).toEqual([]);
    expect(undeliveredConfirmed({ published: [1, 1, 1], confirmed: [1, 0, 1], delivered: [1, 0, 0], redelivered: [0, 0, 0] }, 3)).toBe(1);
  });
});

describe('clusterAvailability', () => {
  it('says how to start the cluster when there is none, and which nodes are down when there is one', () => {
    const dir = tempDir('cluster');
    try {
      const layout = clusterLayout(resolveClusterSettings({ BENCH_CLUSTER_DIR: dir }));
      expect(clusterAvailability(layout)).toEqual({
        up: false,
        running: [],
        reason: `no benchmark cluster is up (no ${path.join(dir, 'cluster.json')}); start one with \`npm run cluster:up\``,
      });
      writeClusterState(layout, 30_000);
      // A pid file whose process is not a cluster node (this very test process) does not count.
      fs.mkdirSync(layout.nodes[0]!.nodeDir, { recursive: true });
      fs.writeFileSync(layout.nodes[0]!.pidFile, String(process.pid));
      expect(clusterAvailability(layout)).toMatchObject({
        up: false,
        reason:
          'cluster node(s) bench-a@localhost, bench-b@localhost, bench-c@localhost not running; `npm run cluster:status`, or `npm run cluster:down && npm run cluster:up`',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
