/**
 * @faults
 *
 * The fault matrix: the faults that break AMQP clients in production — the broker closing the
 * connection, a channel closed by the server, a consumer cancelled by the server, a resource
 * alarm blocking publishers, a dead peer only heartbeats can notice, a paused broker node, a broker
 * restart, a consumer holding a delivery past the broker's acknowledgement timeout — each
 * injected through the fault model (src/faults) into every client configuration under test
 * (BENCH_CLIENTS; `npm run bench:faults` is all of them). Per thread: detection, recovery, and the
 * fate of every publish in flight. Library-recovered clients recover through their library alone;
 * `amqplib` is the control (the harness's own loop, labelled so).
 *
 * Findings are results, not harness failures: a cell that reached its verdict within its bounds
 * passes, and its row says what failed (BENCH_FAIL_ON_FINDINGS=true fails it instead). What is
 * asserted is the harness's own soundness: every thread started, the fault was put in place and
 * undone, its probes went out; a cell whose harness part failed is recorded as ⚠ first (its
 * reason in the result), then fails its test.
 *
 * The rows are the faults whose definition has a `matrix` field (src/scenarios/matrix.ts): where
 * each runs (the shared broker, or a node of the harness's own), its bounds, which cells are slow.
 * A silence with a library's own defaults waits for its own heartbeat (60 s, or none): those cells
 * are `slow`; `npm run bench:faults` runs the normalised 5 s heartbeat, at five phases of it.
 */
import { benchContext } from '../fixtures/context';
import { clientFields, forEachClient } from '../fixtures/clients';
import { recordResult } from '../fixtures/record';
import { soloBroker, stopSoloNode } from '../fixtures/soloNode';
import { NORMALISED_SETTINGS, type ClientSpec } from '../src/client/api';
import { adapterOf } from '../src/client/registry';
import { sharedBrokerActions } from '../src/broker/actions';
import { getConfig } from '../src/config';
import { computeMatrixResult } from '../src/matrix/result';
import { runMatrixCell, type MatrixBroker } from '../src/matrix/scenario';
import { descriptorOf } from '../src/scenarios/catalogue';
import { MATRIX_ROWS, matrixResultName, type MatrixRow } from '../src/scenarios/matrix';
import { markedTest } from '../src/testing';

async function brokerFor(row: MatrixRow): Promise<MatrixBroker> {
  if (row.broker === 'own_node') {
    const solo = await soloBroker(row.nodeSettings);
    return {
      directUrl: solo.node.url,
      proxy: solo.proxy,
      proxiedUrl: solo.proxiedUrl,
      actions: (topology) => solo.node.brokerActions(topology),
      node: solo.node.actions(solo.proxy),
    };
  }
  const context = benchContext();
  return {
    directUrl: context.directUrl,
    proxy: context.proxy,
    proxiedUrl: context.proxiedUrl,
    actions: (topology) => sharedBrokerActions(getConfig().amqpUrl, topology),
  };
}

/** The normalised profile gives every client the same heartbeat: its interval is then known (a library's own default is not). */
const knownHeartbeatSeconds = (client: ClientSpec) => (client.profile === 'normalised' ? NORMALISED_SETTINGS.heartbeatSeconds : undefined);

async function measureCell(client: ClientSpec, row: MatrixRow): Promise<void> {
  const heartbeatSeconds = knownHeartbeatSeconds(client);
  const phases = row.heartbeatPhases !== undefined && heartbeatSeconds !== undefined ? row.heartbeatPhases : undefined;
  const outcome = await runMatrixCell({
    client,
    fault: { kind: row.fault },
    broker: await brokerFor(row),
    ...row.bounds(client.profile),
    ...(phases ? { threads: phases, heartbeatIntervalMs: heartbeatSeconds! * 1000 } : {}),
  });
  const silenceCheck = adapterOf(client).silenceCheck;
  const computed = computeMatrixResult(outcome, { heartbeatSeconds, ...(silenceCheck ? { silenceCheck } : {}) });
  const fields = clientFields(client);
  const m = computed.metrics;
  recordResult(
    {
      name: matrixResultName(row.fault),
      parameters: { threads: outcome.options.threads, confirm_window: outcome.options.confirmWindow, ...fields.parameters },
      client: fields.client,
      metrics: computed.metrics,
      notes: computed.notes,
      details: computed.details as unknown as Record<string, unknown>,
      fault: computed.fault,
      fault_proxy: computed.faultProxy,
      // From the injection to the end of publishing; the rest is threads connecting, warm-up, settling and closing.
      ...(outcome.injection && outcome.settleStartedNs
        ? { measured_ms: Math.round(Number(outcome.settleStartedNs - outcome.injection.bracket.startedNs) / 1e6) }
        : {}),
    },
    `${descriptorOf({ name: matrixResultName(row.fault) }).label}: ${computed.verdict.cell}; published ${m.messages_published?.value}, confirmed ${m.messages_confirmed?.value}, rejected ${m.publishes_rejected?.value}, hung ${m.publishes_hung?.value}, lost ${m.messages_lost?.value}` +
      (computed.verdict.findings.length > 0 ? `\n      ${computed.verdict.findings.join('\n      ')}` : '') +
      (computed.details.harness_problems.length > 0
        ? `\n      harness: ${computed.details.harness_problems.join('\n      harness: ')}`
        : ''),
  );
  // The verdict is recorded (⚠ with its reason) before the harness's own soundness is asserted;
  // the client's findings are the result (unless asked to fail on them).
  expect(computed.details.harness_problems).toEqual([]);
  if (getConfig().failOnFindings) expect(computed.verdict.findings).toEqual([]);
}

afterAll(() => stopSoloNode(), 120_000);

forEachClient((client) =>
  describe('TestFaultMatrix', () => {
    for (const row of MATRIX_ROWS) {
      const bounds = row.bounds(client.profile);
      // Every bound of the cell (the recovery bound twice: a consumer still being delivered to is waited for up to one more), the heartbeat stagger and phase wait, set-up and close, and a margin: the cell's own bounds always end it first.
      const heartbeatMs = 2 * 1000 * (knownHeartbeatSeconds(client) ?? 0);
      const timeoutMs = bounds.detectionBoundMs + (bounds.holdMs ?? 0) + bounds.recoveryBoundMs * 2 + heartbeatMs + 90_000;
      markedTest(row.slowProfiles?.includes(client.profile) ? ['slow'] : [])(
        `test_fault_${row.fault}`,
        () => measureCell(client, row),
        timeoutMs,
      );
    }
  }),
);
