/**
 * A made-up fault-matrix cell outcome for the pure verdict tests: one thread that noticed the
 * fault, published before and after the removal, and was back, on the board and ledger the
 * harness fills.
 */
import { faultDefinition } from '../../../src/faults/kinds/registry';
import type { Fault } from '../../../src/faults/model';
import type { FaultEvent } from '../../../src/faults/toxiproxyClient';
import { RECEIVED_KIND_CODES } from '../../../src/client/faults';
import { MatrixBoard, MatrixInt, MatrixTime } from '../../../src/matrix/board';
import { PublishLedger } from '../../../src/matrix/ledger';
import { PublishPhase } from '../../../src/matrix/report';
import { resolveCellOptions, type MatrixOutcome } from '../../../src/matrix/scenario';

const MS = 1_000_000n;
const T0 = 5_000_000n * MS;
export const PORT = 40_001;
export const at = (ms: number) => T0 + BigInt(Math.round(ms * 1e6));

/** The ledger's report with its confirms at made-up moments (the ledger stamps a confirm with the real clock): seq -> ms. */
export function confirmedAt(ledger: PublishLedger, confirmsMs: Readonly<Record<number, number>>) {
  const report = ledger.report();
  return { ...report, settledAtNs: BigInt64Array.from(report.settledAtNs, (ns, seq) => (seq in confirmsMs ? at(confirmsMs[seq]!) : ns)) };
}

export function frame(ms: number, stream: 'upstream' | 'downstream', method: string, replyCode?: number): FaultEvent {
  return {
    at_ns: String(at(ms)),
    kind: 'amqp_frame',
    stream,
    connection_id: 1,
    client: `127.0.0.1:${PORT}`,
    detail: { method, channel: 1, ...(replyCode ? { reply_code: replyCode, reply_text: 'NOT_FOUND - no queue' } : {}) },
  };
}

/** One thread that noticed by `detectedBy` at `detectedMs`, published before and after the removal, and was back. */
export function outcomeOf(
  kind: string,
  detectedBy: keyof typeof RECEIVED_KIND_CODES,
  detectedMs: number,
  events: FaultEvent[],
  removedMs = 2000,
): MatrixOutcome {
  const board = new MatrixBoard(1);
  board.setInt(0, MatrixInt.LOCAL_PORT, PORT);
  board.setTimeOnce(0, MatrixTime.DETECTED, at(detectedMs));
  board.setInt(0, MatrixInt.DETECTED_KIND, RECEIVED_KIND_CODES[detectedBy]);
  const ledger = new PublishLedger();
  ledger.published(0, PublishPhase.BEFORE, at(-10));
  ledger.confirmed(0);
  ledger.delivered(0, at(-9));
  ledger.published(1, PublishPhase.AFTER_REMOVAL, at(removedMs + 100));
  ledger.confirmed(1);
  ledger.delivered(1, at(removedMs + 150));
  ledger.classAll();
  return {
    client: { name: 'some-client', profile: 'normalised' },
    fault: {
      kind,
      definition: faultDefinition(kind),
      target: { type: 'queue', name: 'q', node: 'rabbit@localhost' },
      hits: [],
      steps: [],
      parameters: {},
    } as unknown as Fault,
    proxyServer: { kind: 'embedded', version: '2.12.0', extensions: ['events'] },
    threads: [
      { threadIndex: 0, ...confirmedAt(ledger, { 0: -9, 1: removedMs + 120 }), ports: [PORT], events: [], unhandled: [], closeMs: 2 },
    ],
    leftInQueue: [new Map()],
    injection: { bracket: { startedNs: at(-1), completedNs: at(1) }, mode: 'broker_action' },
    removal: { startedNs: at(removedMs), completedNs: at(removedMs + 5), method: 'undone', problems: [] },
    faultEvents: events,
    proxyConnections: null,
    startedNs: at(-5000),
    removedNs: at(removedMs + 5),
    settleStartedNs: at(removedMs + 1000),
    allDetected: true,
    allRecovered: true,
    options: resolveCellOptions({
      client: { name: 'x', profile: 'normalised' },
      fault: { kind },
      broker: undefined as never,
      threads: 1,
      detectionBoundMs: 5000,
      recoveryBoundMs: 10_000,
    }),
    probes: { sent: 3, failed: 0 },
    harnessProblems: [],
    board,
  };
}
