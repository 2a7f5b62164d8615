/**
 * @faults
 *
 * The fault matrix: the faults that break AMQP clients in production — the broker closing the
 * connection, a channel closed by the server, a consumer cancelled by the server, a resource
 * alarm blocking publishers, a dead peer only heartbeats can notice, a paused broker node — each
 * injected through the fault model (src/faults) into every client configuration under test
 * (BENCH_CLIENTS; `npm run bench:faults` is all of them). Per thread: detection, recovery, and the
 * fate of every publish in flight. Library-recovered clients recover through their library alone;
 * `amqplib` is the control (the harness's own loop, labelled so).
 *
 * Findings are results, not harness failures: a cell that reached its verdict within its bounds
 * passes, and its row says what failed (BENCH_FAIL_ON_FINDINGS=true fails it instead). What is
 * asserted is the harness's own soundness: every thread started, the fault was put in place and
 * undone.
 *
 * A dead peer and a paused node with a library's own defaults wait for its own heartbeat (60 s, or
 * none): those cells are `slow` (bounded at a few minutes); `npm run bench:faults` runs the
 * normalised 5 s heartbeat.
 */
import { benchContext } from '../fixtures/context';
import { clientFields, forEachClient } from '../fixtures/clients';
import { recordResult } from '../fixtures/record';
import { soloBroker, stopSoloNode } from '../fixtures/soloNode';
import { NORMALISED_SETTINGS, type ClientSpec } from '../src/client/api';
import { sharedBrokerActions } from '../src/broker/actions';
import { getConfig } from '../src/config';
import { computeMatrixResult } from '../src/matrix/result';
import { runMatrixCell, type MatrixBroker, type MatrixCellOptions } from '../src/matrix/scenario';
import { descriptorOf } from '../src/scenarios/catalogue';
import { matrixResultName, type MatrixFault } from '../src/scenarios/matrix';
import { markedTest } from '../src/testing';

/** One row of the matrix: the fault, where it runs, and its bounds. */
interface MatrixRow {
  readonly fault: MatrixFault;
  /** `shared`: the broker on 5672 through the proxy; `solo`: a node the harness starts (alarms, pauses affect every client of a node). */
  readonly broker: 'shared' | 'solo';
  readonly bounds: (client: ClientSpec) => Pick<MatrixCellOptions, 'detectionBoundMs' | 'recoveryBoundMs' | 'holdMs' | 'closeCheck'>;
  /** Cells that wait for a library's own (slow) defaults. */
  readonly slow?: (client: ClientSpec) => boolean;
}

/** Heartbeat faults with a library's defaults: 60 s heartbeats (2-3 missed) or none at all. */
const heartbeatDefaults = (client: ClientSpec) => client.profile === 'defaults';
const heartbeatBounds = (client: ClientSpec) =>
  client.profile === 'defaults'
    ? { detectionBoundMs: 200_000, recoveryBoundMs: 30_000 }
    : { detectionBoundMs: 25_000, recoveryBoundMs: 20_000 };

const ROWS: readonly MatrixRow[] = [
  { fault: 'broker_close', broker: 'shared', bounds: () => ({ detectionBoundMs: 5000, recoveryBoundMs: 15_000 }) },
  { fault: 'channel_error', broker: 'shared', bounds: () => ({ detectionBoundMs: 5000, recoveryBoundMs: 10_000 }) },
  { fault: 'consumer_cancel', broker: 'shared', bounds: () => ({ detectionBoundMs: 5000, recoveryBoundMs: 10_000 }) },
  // Held blocked 2 s (what each publish does meanwhile), and close() of a blocked connection checked.
  { fault: 'alarm', broker: 'solo', bounds: () => ({ detectionBoundMs: 5000, holdMs: 2000, recoveryBoundMs: 10_000, closeCheck: true }) },
  { fault: 'dead_peer', broker: 'shared', bounds: heartbeatBounds, slow: heartbeatDefaults },
  { fault: 'node_pause', broker: 'solo', bounds: heartbeatBounds, slow: heartbeatDefaults },
];

async function brokerFor(row: MatrixRow): Promise<MatrixBroker> {
  if (row.broker === 'solo') {
    const solo = await soloBroker();
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

async function measureCell(client: ClientSpec, row: MatrixRow): Promise<void> {
  const outcome = await runMatrixCell({ client, fault: { kind: row.fault }, broker: await brokerFor(row), ...row.bounds(client) });
  // The normalised profile gives every client the same heartbeat: its window is then known.
  const computed = computeMatrixResult(
    outcome,
    client.profile === 'normalised' ? { heartbeatSeconds: NORMALISED_SETTINGS.heartbeatSeconds } : {},
  );
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
      (computed.verdict.findings.length > 0 ? `\n      ${computed.verdict.findings.join('\n      ')}` : ''),
  );
  // The harness's own soundness is asserted; the client's findings are the result (unless asked to fail on them).
  expect(outcome.harnessProblems).toEqual([]);
  if (getConfig().failOnFindings) expect(computed.verdict.findings).toEqual([]);
}

afterAll(() => stopSoloNode(), 120_000);

forEachClient((client) =>
  describe('TestFaultMatrix', () => {
    for (const row of ROWS) {
      const bounds = row.bounds(client);
      // Every bound of the cell, its set-up and close, and a margin: the cell's own bounds always end it first.
      const timeoutMs = bounds.detectionBoundMs + (bounds.holdMs ?? 0) + bounds.recoveryBoundMs + 90_000;
      markedTest(row.slow?.(client) ? ['slow'] : [])(`test_fault_${row.fault}`, () => measureCell(client, row), timeoutMs);
    }
  }),
);
