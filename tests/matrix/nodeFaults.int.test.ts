/**
 * The matrix's faults that need a node of the harness's own with something done to it, against
 * the real broker and the embedded proxy, for a client the harness recovers (amqplib, the control)
 * and one its library recovers (rabbitmq-client), normalised profile: a restart of the node (down
 * 3 s: connections refused, then back with its durable queues). Each cell reaches its verdict
 * within its bounds, its moments are the proxy's (the stopping node's connection.close, the
 * restarted node's connection.start), every publish ends in one class, and the node is stopped at
 * the end whatever happened.
 */
import type { ClientSpec } from '../../src/client/api';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { startSoloNode, type SoloNode } from '../../src/broker/nodes/soloNode';
import { brokerRestart } from '../../src/faults/kinds/brokerRestart';
import { computeMatrixResult, type MatrixResult } from '../../src/matrix/result';
import { runMatrixCell, type MatrixBroker, type MatrixOutcome } from '../../src/matrix/scenario';
import { schemaProblem } from '../../src/results/schemas';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

const CONTROL: ClientSpec = { name: 'amqplib', profile: 'normalised' };
const LIBRARY: ClientSpec = { name: 'rabbitmq-client', profile: 'normalised' };

let proxy: EmbeddedProxyEntry;
let solo: SoloNode;
let broker: MatrixBroker;

beforeAll(async () => {
  proxy = await startEmbeddedProxyEntry('node-faults-unused');
  solo = await startSoloNode(resolveClusterSettings());
  const entry = await proxy.proxy.client.createProxy({
    name: 'node-faults',
    listen: '127.0.0.1:0',
    upstream: `127.0.0.1:${solo.node.amqpPort}`,
  });
  const url = new URL(solo.url);
  url.host = entry.listen;
  const target = { client: proxy.proxy.client, name: 'node-faults' };
  broker = {
    directUrl: solo.url,
    proxy: target,
    proxiedUrl: url.toString().replace(/\/$/, ''),
    actions: (topology) => solo.brokerActions(topology),
    node: solo.actions(target),
  };
}, 120_000);

afterAll(async () => {
  await solo?.stop();
  await proxy?.close();
}, 60_000);

async function restartCell(client: ClientSpec): Promise<{ result: MatrixResult; outcome: MatrixOutcome }> {
  const outcome = await runMatrixCell({
    client,
    fault: { kind: 'broker_restart' },
    broker,
    threads: 2,
    warmupMessages: 10,
    settleMs: 2000,
    ...brokerRestart.matrix!.bounds('normalised'),
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
  it('timed from the stopping node’s connection.close, recovery from the restarted node’s connection.start; the durable queues keep every confirmed message', async () => {
    const { result, outcome } = await restartCell(client);
    expect(result.fault.reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.fault.received).toEqual({ broker_closed: 2 });
    expect(result.details.removal_reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.details.removal_reference?.description).toMatch(/connection\.start/);
    // Down 3 s at least: the node stopped, the stated time passed, then it was started again.
    const [stop, start] = outcome.fault.steps;
    expect([stop?.step, start?.step]).toEqual(['stop', 'restart']);
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
