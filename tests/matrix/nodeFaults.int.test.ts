/**
 * The matrix's faults that need a node of the harness's own with something done to it, against
 * the real broker and the embedded proxy, for a client the harness recovers (amqplib, the control)
 * and one its library recovers (rabbitmq-client), normalised profile: a restart of the node (down
 * 3 s: connections refused, then back with its durable queues), and a consumer acknowledgement
 * timeout (a node configured with a 3 s consumer_timeout, a consumer stuck holding its deliveries). Each cell reaches its verdict
 * within its bounds, its moments are the proxy's (the stopping node's connection.close, the
 * restarted node's connection.start), every publish ends in one class, and the node is stopped at
 * the end whatever happened.
 */
import type { ClientSpec } from '../../src/client/api';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { configuredSoloNode, startSoloNode, type SoloNode } from '../../src/broker/nodes/soloNode';
import { ACK_TIMEOUT_SETTINGS } from '../../src/faults/kinds/ackTimeout';
import { faultDefinition } from '../../src/faults/kinds/registry';
import { computeMatrixResult, type MatrixResult } from '../../src/matrix/result';
import { runMatrixCell, type MatrixBroker, type MatrixOutcome } from '../../src/matrix/scenario';
import { schemaProblem } from '../../src/results/schemas';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

const CONTROL: ClientSpec = { name: 'amqplib', profile: 'normalised' };
const LIBRARY: ClientSpec = { name: 'rabbitmq-client', profile: 'normalised' };

let proxy: EmbeddedProxyEntry;
let solo: SoloNode;
let configured: SoloNode;
let broker: MatrixBroker;
let configuredBroker: MatrixBroker;

async function brokerOf(node: SoloNode, name: string): Promise<MatrixBroker> {
  const entry = await proxy.proxy.client.createProxy({ name, listen: '127.0.0.1:0', upstream: `127.0.0.1:${node.node.amqpPort}` });
  const url = new URL(node.url);
  url.host = entry.listen;
  const target = { client: proxy.proxy.client, name };
  return {
    directUrl: node.url,
    proxy: target,
    proxiedUrl: url.toString().replace(/\/$/, ''),
    actions: (topology) => node.brokerActions(topology),
    node: node.actions(target),
  };
}

beforeAll(async () => {
  proxy = await startEmbeddedProxyEntry('node-faults-unused');
  solo = await startSoloNode(resolveClusterSettings());
  broker = await brokerOf(solo, 'node-faults');
  configured = await startSoloNode(resolveClusterSettings(), undefined, configuredSoloNode(ACK_TIMEOUT_SETTINGS));
  configuredBroker = await brokerOf(configured, 'node-faults-configured');
}, 240_000);

afterAll(async () => {
  await solo?.stop();
  await configured?.stop();
  await proxy?.close();
}, 90_000);

async function runCell(
  client: ClientSpec,
  fault: 'broker_restart' | 'ack_timeout',
): Promise<{ result: MatrixResult; outcome: MatrixOutcome }> {
  const outcome = await runMatrixCell({
    client,
    fault: { kind: fault },
    broker: fault === 'broker_restart' ? broker : configuredBroker,
    threads: 2,
    warmupMessages: 10,
    settleMs: 2000,
    ...faultDefinition(fault).matrix!.bounds('normalised'),
  });
  const result = computeMatrixResult(outcome, { heartbeatSeconds: 5 });
  expect(result.details.harness_problems).toEqual([]);
  const m = (name: string) => result.metrics[name]?.value ?? 0;
  expect(m('messages_published')).toBeGreaterThan(0);
  expect(m('messages_confirmed') + m('publishes_nacked') + m('publishes_rejected') + m('publishes_hung')).toBe(m('messages_published'));
  expect(schemaProblem('matrix-details.schema.json', result.details)).toBeUndefined();
  return { result, outcome };
}

describe.each([
  ['the harness-recovered control', CONTROL],
  ['a library-recovered client', LIBRARY],
])('broker_restart, %s (a node of its own, embedded proxy)', (_label, client) => {
  it('timed from the stopping node’s connection.close (or its stop call), recovery from the restarted node’s connection.start; the durable queues keep every confirmed message', async () => {
    const { result, outcome } = await runCell(client, 'broker_restart');
    // The stopping node's connection.close where it sent one (a node restarted before closes the sockets without it).
    const closeFrames = outcome.faultEvents?.filter(
      (event) => event.detail?.method === 'connection.close' && event.stream === 'downstream',
    );
    expect(result.fault.reference.exact).toBe((closeFrames?.length ?? 0) > 0);
    // A stopping node that closes a socket with publishes still unread in it sends an RST (the
    // kernel's rule for a close with unread data), more often on a loaded machine: told, either way.
    expect(Object.keys(result.fault.received).every((kind) => kind === 'broker_closed' || kind === 'closed' || kind === 'reset')).toBe(
      true,
    );
    expect(outcome.fault.steps.map((step) => `${step.step}${step.problem ? `: ${step.problem}` : ''}`)).toEqual(['stop', 'restart']);
    expect(result.details.removal_reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.details.removal_reference?.description).toMatch(/connection\.start/);
    // Down 3 s at least: the node stopped, the stated time passed, then it was started again.
    const [stop, start] = outcome.fault.steps;
    expect(Number(start!.bracket.startedNs - stop!.bracket.completedNs) / 1e6).toBeGreaterThanOrEqual(2990);
    expect(start?.problem).toBeUndefined();
    // Quorum queues keep what was confirmed: nothing confirmed is lost, and both threads are back.
    expect(result.metrics.messages_lost?.value).toBe(0);
    expect(result.metrics.threads_recovered?.value).toBe(2);
    expect(result.verdict.ok).toBe(true);
    // The control reconnects only once the harness removed the fault; the library retries through the refusals.
    if (client === LIBRARY) expect(result.details.refused_attempts?.count).toBeGreaterThan(0);
    expect(solo.actions().running()).toBe(true);
  }, 150_000);
});

describe.each([
  ['the harness-recovered control', CONTROL],
  ['a library-recovered client', LIBRARY],
])('ack_timeout, %s (a node of its own with a 3 s consumer_timeout, embedded proxy)', (_label, client) => {
  it('each consumer is stuck from the injection, its prefetch window full: timed from the broker’s channel.close 406, and the first held message goes back to the queue', async () => {
    const { result, outcome } = await runCell(client, 'ack_timeout');
    expect(result.fault.reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.fault.reference.description).toMatch(/channel\.close 406/);
    // The broker acts on its tick after the timeout: 3-4 s after the hold, well within the bound.
    for (const thread of result.details.threads) {
      expect(thread.held_delivery).toBeDefined();
      // Every delivery held until the close (both clients hand each one to the handler at once):
      // the window full, nothing more in flight on the channel when the broker closed it.
      expect(thread.held_delivery!.held).toBe(outcome.options.prefetch);
      // Back in the queue when the channel closed: delivered to it again, or still queued at the end.
      expect(thread.held_delivery!.deliveries + thread.held_delivery!.left_in_queue).toBeGreaterThanOrEqual(2);
    }
    expect(result.metrics.messages_lost?.value).toBe(0);
  }, 120_000);
});
