/**
 * The broker that stops reading (stop_reading: the bandwidth toxic upstream at 1 KB/s) against the
 * real broker and the embedded proxy, as a row of the fault matrix: amqplib, whose publish()
 * returns false while its buffer is over its mark, and rascal, whose publication pool says 'busy'
 * once its queue is full (on already, under the ordinary load, in some runs), are seen to say so; rabbitmq-client, which has no such signal, is a
 * finding; all take every publish offered during the stall (their memory grows), and once the
 * toxic is gone every publish made during it is confirmed or rejected, none lost, and the drain is
 * timed. The proxy's own backlog is bounded (it stops reading instead).
 */
import type { ClientSpec } from '../../src/client/api';
import { unavailableClients } from '../../src/client/registry';
import { sharedBrokerActions } from '../../src/broker/actions';
import { getConfig } from '../../src/config';
import { stopReading } from '../../src/faults/kinds/stopReading';
import { computeMatrixResult, type MatrixResult } from '../../src/matrix/result';
import { runMatrixCell, type MatrixBroker } from '../../src/matrix/scenario';
import { schemaProblem } from '../../src/results/schemas';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

let shared: EmbeddedProxyEntry;

beforeAll(async () => {
  shared = await startEmbeddedProxyEntry('matrix-stop-reading');
}, 60_000);

afterAll(async () => {
  await shared?.close();
}, 60_000);

const broker = (): MatrixBroker => ({
  directUrl: getConfig().amqpUrl,
  proxy: shared.proxy,
  proxiedUrl: shared.proxiedUrl,
  actions: (topology) => sharedBrokerActions(getConfig().amqpUrl, topology),
});

async function stallCell(client: ClientSpec): Promise<MatrixResult> {
  const outcome = await runMatrixCell({
    client,
    fault: { kind: 'stop_reading' },
    broker: broker(),
    threads: 1,
    warmupMessages: 10,
    ...stopReading.matrix!.bounds(client.profile),
  });
  const result = computeMatrixResult(outcome, { heartbeatSeconds: 5 });
  expect(result.details.harness_problems).toEqual([]);
  expect(schemaProblem('matrix-details.schema.json', result.details)).toBeUndefined();
  const m = (name: string) => result.metrics[name]?.value ?? 0;
  // Every publish ends in exactly one class, and none is lost.
  expect(m('messages_published')).toBeGreaterThan(0);
  expect(m('messages_confirmed') + m('publishes_nacked') + m('publishes_rejected') + m('publishes_hung')).toBe(m('messages_published'));
  expect(m('messages_lost')).toBe(0);
  expect(m('publishes_hung')).toBe(0);
  const stall = result.details.threads[0]!.stall!;
  // Publishers kept offering their rate while the broker read (almost) nothing.
  expect(stall.stall_s).toBeGreaterThanOrEqual(5);
  expect(stall.published_during_stall).toBeGreaterThan(100);
  expect(stall.samples).toBeGreaterThanOrEqual(10);
  // Far more outstanding than the 1 KB/s trickle lets through (a 16 KB message every 16 s).
  expect(stall.outstanding_at_removal).toBeGreaterThan(50);
  expect(stall.unsettled_from_stall).toBe(0);
  expect(stall.drain_ms).not.toBeNull();
  return result;
}

it('amqplib: publish() returning false is its back-pressure signal, noticed during the stall; all confirmed after it', async () => {
  const result = await stallCell({ name: 'amqplib', profile: 'normalised' });
  const thread = result.details.threads[0]!;
  expect(thread.stall!.signal).toBe('given');
  expect(thread.detected_by).toBe('backpressure');
  expect(thread.detection_ms).toBeLessThan(6000);
  expect(result.verdict.findings.filter((finding) => /back-pressure/.test(finding))).toEqual([]);
  expect(result.metrics.stall_worker_memory_mb_per_s?.value).not.toBeNull();
}, 150_000);

// Its confirm pool has 5 channels and a confirmed publish holds one until its confirm, so under the
// window of 50 awaiting confirms the pool's queue is often full already: 'busy' may be on before the
// fault is in place and then stays on (its 'ready' needs the queue empty). Either way it is on at the
// removal, the harness polled it all along, and the cell never says the library gave no signal.
it("rascal: its channel pool's 'busy', on during the stall: turned on by it, or on already under the ordinary load and kept on", async () => {
  const result = await stallCell({ name: 'rascal', profile: 'defaults' });
  const thread = result.details.threads[0]!;
  const stall = thread.stall!;
  expect(['given', 'on_already']).toContain(stall.signal);
  expect(typeof stall.signal_at_injection).toBe('boolean');
  expect(stall.signal_at_removal).toBe(true);
  expect(stall.longest_poll_gap_ms).toBeLessThan(1000);
  expect(stall.polls_before_injection).toBeGreaterThan(0);
  expect(result.verdict.findings.filter((finding) => /no back-pressure signal/.test(finding))).toEqual([]);
  if (stall.signal === 'given') expect(thread.detected_by).toBe('backpressure');
  else {
    expect(stall).toMatchObject({ signal_at_injection: true, signal_on_share: 1 });
    expect(result.verdict.cell).toBe('❌ back-pressure signal on already before the stall');
  }
}, 150_000);

it('rabbitmq-client: no back-pressure signal at all, a finding with its memory growth; all confirmed after the stall', async () => {
  const result = await stallCell({ name: 'rabbitmq-client', profile: 'normalised' });
  const thread = result.details.threads[0]!;
  expect(thread.stall!.signal).toBe('none');
  expect(thread.detected_by).toBe('none');
  expect(
    result.verdict.findings.some((finding) =>
      /thread 0: no back-pressure signal: the library has none; it took \d+ publishes/.test(finding),
    ),
  ).toBe(true);
  expect(result.verdict.cell).toMatch(/no back-pressure signal/);
}, 150_000);

// A client program: its publishes are commands over its pipe, and what its library has not taken
// waits in the program's own process; its resident set (read from /proc) is what the cell can say.
const goMissing = unavailableClients().find(({ name }) => name === 'amqp091-go')?.why;
(goMissing ? it.skip : it)(
  "amqp091-go (a client program): no signal, the program's own RSS growth given instead of the worker's",
  async () => {
    const result = await stallCell({ name: 'amqp091-go', profile: 'normalised' });
    const stall = result.details.threads[0]!.stall!;
    expect(stall).toMatchObject({ signal: 'none', memory_measured: false, worker_memory_mb_per_s: null });
    expect(typeof stall.program_rss_mb_per_s).toBe('number');
    expect(result.metrics.stall_program_rss_mb_per_s?.value).toBe(stall.program_rss_mb_per_s);
    expect(result.verdict.findings.some((finding) => /the program's RSS [+-]?[\d.]+ MB\/s/.test(finding))).toBe(true);
  },
  150_000,
);
