/**
 * Every fault of the matrix against the real broker and the embedded proxy, for a client the
 * harness recovers (amqplib, the control) and one its library recovers (rabbitmq-client), both
 * with the normalised 5 s heartbeat: each cell reaches its verdict within its bounds, the fault's
 * moment is the proxy's (a frame, a dropped chunk) where it has one, recovery is timed from the
 * removal as the broker or proxy saw it, every publish ends in exactly one class, a silence is
 * noticed by the client's own heartbeat at every phase of its interval (the broker's close held
 * back, as a partition holds it), and the harness is left clean (fault undone, node stopped).
 */
import type { ClientSpec } from '../../src/client/api';
import { sharedBrokerActions } from '../../src/broker/actions';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { startSoloNode, type SoloNode } from '../../src/broker/nodes/soloNode';
import { getConfig } from '../../src/config';
import { computeMatrixResult, type MatrixResult } from '../../src/matrix/result';
import { schemaProblem } from '../../src/results/schemas';
import { runMatrixCell, type MatrixBroker, type MatrixCellOptions } from '../../src/matrix/scenario';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

const CONTROL: ClientSpec = { name: 'amqplib', profile: 'normalised' };
const LIBRARY: ClientSpec = { name: 'rabbitmq-client', profile: 'normalised' };

let shared: EmbeddedProxyEntry;
let solo: SoloNode;
let soloBroker: MatrixBroker;

beforeAll(async () => {
  shared = await startEmbeddedProxyEntry('matrix-shared');
  solo = await startSoloNode(resolveClusterSettings());
  const entry = await shared.proxy.client.createProxy({
    name: 'matrix-solo',
    listen: '127.0.0.1:0',
    upstream: `127.0.0.1:${solo.node.amqpPort}`,
  });
  const url = new URL(solo.url);
  url.host = entry.listen;
  const proxy = { client: shared.proxy.client, name: 'matrix-solo' };
  soloBroker = {
    directUrl: solo.url,
    proxy,
    proxiedUrl: url.toString().replace(/\/$/, ''),
    actions: (topology) => solo.brokerActions(topology),
    node: solo.actions(proxy),
  };
}, 120_000);

afterAll(async () => {
  await solo?.stop();
  await shared?.close();
}, 60_000);

const sharedBroker = (): MatrixBroker => ({
  directUrl: getConfig().amqpUrl,
  proxy: shared.proxy,
  proxiedUrl: shared.proxiedUrl,
  actions: (topology) => sharedBrokerActions(getConfig().amqpUrl, topology),
});

/** A silence: five threads opened over one 5 s interval, so the silence meets five phases of it. */
const SILENCE: Partial<MatrixCellOptions> = { threads: 5, heartbeatIntervalMs: 5000, detectionBoundMs: 25_000, recoveryBoundMs: 15_000 };

/**
 * The threads met the silence at the grid's five phases (measured from each connection's opening),
 * and each noticed it after two to three intervals, as the protocol asks: the figures are a range.
 */
function expectPhasesSpread(result: MatrixResult): void {
  const phases = result.details.threads.map((thread) => thread.heartbeat_phase ?? -1).sort();
  // Connections open a few ms to some 100 ms after they were asked to: the grid, within 0.12 of an interval.
  [0.1, 0.3, 0.5, 0.7, 0.9].forEach((expected, index) => expect(Math.abs(phases[index]! - expected)).toBeLessThan(0.12));
  const heartbeat = result.details.heartbeat!;
  expect(heartbeat).toMatchObject({ judgement: 'within', within: true });
  expect(heartbeat.phases).toHaveLength(5);
  expect(heartbeat.intervals!.min).toBeGreaterThanOrEqual(1.95);
  expect(heartbeat.intervals!.max).toBeLessThanOrEqual(3.2);
}

async function cell(
  client: ClientSpec,
  fault: string,
  broker: MatrixBroker,
  bounds: Partial<MatrixCellOptions> = {},
): Promise<MatrixResult> {
  const outcome = await runMatrixCell({
    client,
    fault: { kind: fault },
    broker,
    threads: 1,
    warmupMessages: 10,
    detectionBoundMs: 5000,
    recoveryBoundMs: 10_000,
    settleMs: 2000,
    ...bounds,
  });
  const result = computeMatrixResult(outcome, { heartbeatSeconds: 5 });
  expect(result.details.harness_problems).toEqual([]);
  expect(result.verdict.class).not.toBe('harness');
  // Every publish ends in exactly one class.
  const m = (name: string) => result.metrics[name]?.value ?? 0;
  expect(m('messages_published')).toBeGreaterThan(0);
  expect(m('messages_confirmed') + m('publishes_nacked') + m('publishes_rejected') + m('publishes_hung')).toBe(m('messages_published'));
  // Its details follow their schema (as the raw result checks them when it is written).
  expect(schemaProblem('matrix-details.schema.json', result.details)).toBeUndefined();
  return result;
}

describe.each([
  ['the harness-recovered control', CONTROL],
  ['a library-recovered client', LIBRARY],
])('the fault matrix, %s (real broker, embedded proxy)', (_label, client) => {
  it('broker_close: timed from the connection.close frame, noticed as a broker close, back', async () => {
    const result = await cell(client, 'broker_close', sharedBroker());
    expect(result.fault.reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.fault.received).toEqual({ broker_closed: 1 });
    expect(result.verdict).toMatchObject({ ok: true, findings: [] });
  }, 60_000);

  it('channel_error: timed from the channel.close frame, noticed as a closed channel; the exchange absent until removed, publishing again once it is back', async () => {
    const result = await cell(client, 'channel_error', sharedBroker(), { holdMs: 1500 });
    expect(result.fault.reference).toMatchObject({ exact: true, description: expect.stringMatching(/channel\.close/) });
    expect(result.fault.received).toEqual({ channel_closed: 1 });
    expect(result.verdict.ok).toBe(true);
    expect(result.metrics.publishes_rejected?.value).toBeGreaterThan(0);
    // The exchange stayed absent at least the hold: no recovery can be timed from before its re-declaration.
    expect(result.metrics.full_recovery_latency_ms?.value).toBeGreaterThanOrEqual(1500);
  }, 60_000);

  it('consumer_cancel: timed from the basic.cancel frame, noticed as a cancel; the queue absent until removed, recovery timed from its re-declaration', async () => {
    const result = await cell(client, 'consumer_cancel', sharedBroker(), { holdMs: 1500 });
    expect(result.fault.reference).toMatchObject({ exact: true, description: expect.stringMatching(/basic\.cancel/) });
    expect(result.fault.received).toEqual({ consumer_cancelled: 1 });
    expect(result.details.threads[0]?.noticed_as).toBe('fault');
    // The re-declaration went over the harness's own connection: no frame of it passes the proxy.
    expect(result.details.removal_reference).toMatchObject({ source: 'api_call_start', exact: false });
    expect(result.verdict.ok).toBe(true);
    // The queue stayed absent at least the hold: the slowest recovery cannot be timed from before the re-declaration.
    expect(result.metrics.full_recovery_latency_ms?.value).toBeGreaterThanOrEqual(1500);
  }, 60_000);

  it('alarm (a node of its own): blocked, publishes held, back after the unblock; close() of a blocked connection checked', async () => {
    const result = await cell(client, 'alarm', soloBroker, { holdMs: 1500, closeCheck: true });
    expect(result.fault.reference).toMatchObject({ exact: true, description: expect.stringMatching(/connection\.blocked/) });
    expect(result.fault.received).toEqual({ blocked: 1 });
    // Recovery from the broker's own unblock, as the proxy saw it pass: exact, not the end of the rabbitmqctl call.
    expect(result.details.removal_reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.details.removal_reference?.description).toMatch(/connection\.unblocked/);
    expect(result.metrics.threads_recovered?.value).toBe(1);
    expect(result.details.close_while_blocked).not.toBeNull();
    // amqplib's close does not wait for the broker; rabbitmq-client's waits, and only the adapter's bound ends it.
    expect(result.details.close_while_blocked?.cut_by_adapter_bound).toBe(client.name === 'rabbitmq-client');
  }, 60_000);

  it("dead_peer: the client's own 5 s heartbeat notices the silence at every phase, after two to three intervals; the broker's close held back", async () => {
    const sinceNs = process.hrtime.bigint();
    // Held 20 s: the broker gives up on the silence (after 2-3 intervals, 10-15 s) while it holds.
    const result = await cell(client, 'dead_peer', sharedBroker(), { ...SILENCE, holdMs: 20_000 });
    const events = await shared.proxy.client.events(shared.proxy.name, sinceNs);
    // The broker closed its side (held back by the proxy, as a partition holds it): its close never reached the client.
    expect(events?.some((event) => event.kind === 'end_held' && event.stream === 'downstream')).toBe(true);
    expect(Object.keys(result.fault.received)).toEqual(['heartbeat']);
    expect(result.details.threads.every((thread) => thread.noticed_as === 'fault')).toBe(true);
    expectPhasesSpread(result);
    // Recovery from the proxy's own removal (it closes the connections the silence held).
    expect(result.details.removal_reference).toMatchObject({ source: 'proxy_timeline', exact: true });
    expect(result.verdict.ok).toBe(true);
  }, 150_000);

  it('node_pause (a node of its own): the frozen node is noticed by heartbeats at every phase, and the client is back once it runs again', async () => {
    const result = await cell(client, 'node_pause', soloBroker, SILENCE);
    // Silence leaves no event: an upper bound from the signal, a few µs wide.
    expect(result.fault.reference).toMatchObject({ source: 'api_call_start', exact: false });
    // A frozen node closes nothing: only the client's own heartbeat can tell.
    expect(Object.keys(result.fault.received)).toEqual(['heartbeat']);
    expectPhasesSpread(result);
    expect(result.verdict.ok).toBe(true);
    expect(solo.actions().running()).toBe(true);
  }, 150_000);
});
