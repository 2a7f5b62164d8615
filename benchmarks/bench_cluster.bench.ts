/**
 * @benchmark @slow @cluster
 *
 * Cluster failover: consumer threads spread over the three nodes of the local benchmark cluster
 * (`npm run cluster:up`), each node behind its own fault-proxy entry, every client given every
 * node's URL (home node first). Faults: kill -9 of the node holding the queue, that node
 * partitioned from its clients through its proxy entry, and a rolling restart of every node.
 * Per thread: detection (the client's fault event) and failover (first message consumed after
 * it); with an at-least-once producer (confirms, sequence numbers): messages lost and
 * duplicated. Classic and quorum queues. Skipped, with the reason, while the cluster is down.
 *
 * Asserted: the harness did its job (the cluster restored, no phantom message); for quorum
 * queues also what a quorum queue promises (no confirmed message lost, no unexplained
 * duplicate) and, for a client given every node, that every thread the fault hit consumed
 * again. Classic queues, and clients that take one URL, are measured, not judged.
 */
import type { ClientSpec } from '../src/client/api';
import { clientInfo } from '../src/client/registry';
import { failoverResultName, FAILOVER_FAULTS, type FailoverFault } from '../src/scenarios/cluster';
import { computeFailoverMetrics } from '../src/cluster/metrics';
import type { FailoverQueueType } from '../src/cluster/queues';
import { runFailoverScenario } from '../src/cluster/scenario';
import { clusterAvailability } from '../src/broker/nodes/state';
import { clientFields, forEachClient } from '../fixtures/clients';
import { clusterContext, clusterTest } from '../fixtures/cluster';
import { benchContext } from '../fixtures/context';
import { formatMs, recordResult } from '../fixtures/record';

const TEST_TIMEOUT_MS = 900_000;
const QUEUE_TYPES: readonly FailoverQueueType[] = ['quorum', 'classic'];

const NOTES: readonly string[] = [
  'detection: from the moment the fault hit the node the thread was connected to (kill signal, partition toxic added, stop command of a rolling restart) to the client library reporting the fault',
  'failover: from that moment to the first message the thread consumed after the fault, over its new connection (the failed node delivers nothing more); node_after in details says where that connection went',
  'messages_lost: confirmed by the broker but never delivered, after every node is back and a drain of up to 30 s; messages_duplicated: deliveries beyond the first of a sequence number (republished unconfirmed messages and redeliveries explain them; duplicates_unexplained must be 0)',
];

async function measureFailover(client: ClientSpec, fault: FailoverFault, queueType: FailoverQueueType): Promise<void> {
  const { settings, layout } = clusterContext();
  const info = clientInfo(client);
  const silenceDeadlineMs = fault === 'node_partition' ? 1500 : null;
  const outcome = await runFailoverScenario({
    client,
    layout,
    settings,
    proxyApi: benchContext().proxy.client,
    fault,
    queueType,
    silenceDeadlineMs,
    log: (line) => process.stderr.write(`  · ${line}\n`),
  });
  const computed = computeFailoverMetrics(outcome);
  const metric = (key: string) => computed.metrics[key]?.value ?? null;
  const fields = clientFields(client);
  const notes = [...NOTES];
  if (silenceDeadlineMs !== null)
    notes.push(
      `a partition sends no socket event: each consumer gives up on a connection with no delivery for ${silenceDeadlineMs} ms (the client's own deadline), so detection is about that deadline`,
    );
  if (fault === 'rolling_restart')
    notes.push(
      "rolling restart: detection counts from the start of `rabbitmqctl stop` (the CLI starting its own Erlang VM, then the node shutting down gracefully); thread_failover_after_detection is the client's own part",
    );
  if (!info.multipleHosts)
    notes.push(
      `${info.library} (${client.name}) takes one URL (no multi-host support): its threads on the failed node could only come back to that node, once restored`,
    );
  recordResult(
    {
      name: failoverResultName(fault),
      client: fields.client && { ...fields.client, multiple_hosts: info.multipleHosts },
      parameters: {
        ...fields.parameters,
        queue_type: queueType,
        fault,
        nodes: layout.nodes.length,
        consumers: outcome.consumers.length,
        rate_per_second: outcome.ratePerSecond,
        multiple_hosts: info.multipleHosts,
      },
      cluster: { nodes: layout.nodes.map((node) => ({ name: node.name, amqp_port: node.amqpPort })) },
      metrics: computed.metrics,
      samples: computed.samples,
      targets: computed.targets,
      notes,
      details: computed.details,
    },
    `${queueType}: hit ${metric('threads_hit')}/${metric('threads_total')} (on the failed node: ${metric('threads_on_failed_node')}), failed over ${metric('threads_failed_over')}; ` +
      `detection p50 ${formatMs(metric('thread_detection_p50_ms'))}, failover p50 ${formatMs(metric('thread_failover_p50_ms'))} max ${formatMs(metric('thread_failover_max_ms'))}; ` +
      `confirmed ${metric('messages_confirmed')}, lost ${metric('messages_lost')}, duplicated ${metric('messages_duplicated')} (unexplained ${metric('duplicates_unexplained')})`,
  );

  // The harness's own job, whatever the queue type: the cluster is back as it was found.
  expect(clusterAvailability(layout)).toMatchObject({ up: true });
  expect(computed.account.phantom).toBe(0);
  if (queueType === 'quorum') {
    expect(computed.account.lost).toBe(0);
    expect(computed.account.unexplainedDuplicates).toBe(0);
    // A client given every node fails over to a surviving one; a client that takes one URL can
    // only wait for its node (and its own backoff): measured and noted, not judged.
    if (info.multipleHosts) {
      expect(outcome.problems).toEqual([]);
      expect(metric('threads_failed_over')).toBe(metric('threads_hit'));
      expect(metric('threads_hit')).toBeGreaterThanOrEqual(metric('threads_on_failed_node') ?? 0);
      expect(metric('threads_stalled')).toBe(0);
    }
  }
}

forEachClient((client) =>
  describe('TestClusterFailover', () => {
    // One test per fault of the table (its descriptor: src/scenarios/cluster.ts), named after its result.
    for (const fault of FAILOVER_FAULTS) {
      clusterTest().each(QUEUE_TYPES)(
        `test_failover_${failoverResultName(fault).replace(/^cluster_failover_/, '')}[%s]`,
        async (queueType) => measureFailover(client, fault, queueType),
        TEST_TIMEOUT_MS,
      );
    }
  }),
);
