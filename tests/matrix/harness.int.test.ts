/**
 * The fault matrix's own honesty, against the real broker and the embedded proxy: a publish whose
 * confirm never comes is counted hung (classed at the end of the settle bound, before anything is
 * closed: a close that rejects it afterwards cannot hide it), and a cell whose harness part failed
 * is ⚠ with its reason, neither ✅ nor a finding; at the fault's moment every consumer has a
 * delivery in its handler, so what a library does with its ack on the dead channel shows every run.
 */
import path from 'node:path';
import type { ClientSpec } from '../../src/client/api';
import { sharedBrokerActions } from '../../src/broker/actions';
import { getConfig } from '../../src/config';
import { computeMatrixResult } from '../../src/matrix/result';
import { runMatrixCell, type MatrixBroker } from '../../src/matrix/scenario';
import { verdictClass } from '../../src/matrix/verdict';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

let shared: EmbeddedProxyEntry;

beforeAll(async () => {
  shared = await startEmbeddedProxyEntry('matrix-harness');
}, 60_000);

afterAll(() => shared?.close(), 30_000);

const sharedBroker = (): MatrixBroker => ({
  directUrl: getConfig().amqpUrl,
  proxy: shared.proxy,
  proxiedUrl: shared.proxiedUrl,
  actions: (topology) => sharedBrokerActions(getConfig().amqpUrl, topology),
});

describe('the fault matrix (real broker, embedded proxy)', () => {
  it('counts as hung the publishes whose confirm never came, classed before anything is closed: "5 publishes hung"', async () => {
    const neverSettles: ClientSpec = {
      // Its publishes 6 to 10 never settle: inside the warm-up, so published every run, however fast the recovery.
      name: 'fixture-never-settles-early',
      profile: 'normalised',
      module: path.join(__dirname, '../fixtures/adapters/never-settles-early.js'),
    };
    const outcome = await runMatrixCell({
      client: neverSettles,
      fault: { kind: 'broker_close' },
      broker: sharedBroker(),
      threads: 1,
      warmupMessages: 10,
      detectionBoundMs: 5000,
      recoveryBoundMs: 10_000,
      settleMs: 1500,
    });
    const result = computeMatrixResult(outcome);
    expect(result.details.harness_problems).toEqual([]);
    expect(result.metrics.publishes_hung?.value).toBe(5);
    expect(result.details.threads[0]).toMatchObject({ hung: 5, settled_only_by_close: 0 });
    expect(result.verdict).toMatchObject({ ok: false, class: 'finding', cell: '❌ 5 publishes hung' });
    expect(result.verdict.findings).toEqual([expect.stringMatching(/^5 publish\(es\) hung: not settled 1\.5 s after publishing stopped/)]);
    // Every publish still in exactly one class.
    const m = (name: string) => result.metrics[name]?.value ?? 0;
    expect(m('messages_confirmed') + m('publishes_nacked') + m('publishes_rejected') + m('publishes_hung')).toBe(m('messages_published'));
  }, 60_000);

  it("has a delivery in every consumer's handler at the fault's moment: golevelup's ack on the dead channel is an unhandled rejection in every thread", async () => {
    const outcome = await runMatrixCell({
      client: { name: 'golevelup', profile: 'defaults' },
      fault: { kind: 'broker_close' },
      broker: sharedBroker(),
      threads: 2,
      warmupMessages: 10,
      detectionBoundMs: 5000,
      recoveryBoundMs: 15_000,
      settleMs: 1500,
    });
    const result = computeMatrixResult(outcome);
    expect(result.details.harness_problems).toEqual([]);
    // @golevelup/nestjs-rabbitmq's wrapConsumer: the handler settles after the channel died, channel.ack throws, the nack throws too.
    for (const thread of result.details.threads) expect(thread.unhandled.join('\n')).toMatch(/Channel closed/);
    expect(result.verdict.cell).toMatch(/^❌ .*unhandled error/);
  }, 90_000);

  it('makes a cell whose fault could not be injected ⚠ with the reason: neither ✅ nor a finding', async () => {
    // An alarm is refused on the shared broker (it would block every client of it): the injection fails.
    const outcome = await runMatrixCell({
      client: { name: 'amqplib', profile: 'normalised' },
      fault: { kind: 'alarm' },
      broker: sharedBroker(),
      threads: 1,
      warmupMessages: 10,
      detectionBoundMs: 2000,
      recoveryBoundMs: 2000,
      settleMs: 500,
    });
    const result = computeMatrixResult(outcome);
    expect(result.verdict).toMatchObject({ ok: false, class: 'harness', findings: [] });
    expect(result.verdict.cell).toMatch(/^⚠ harness: the cell stopped early: /);
    expect(result.verdict.harness_problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/stopped early/), 'the fault was not injected']),
    );
    expect(result.details.harness_problems).toEqual(result.verdict.harness_problems);
    expect(verdictClass(result.verdict)).toBe('⚠ harness');
  }, 60_000);
});
