import { ToxiproxyClient } from '../../src/faults';
import { createFault } from '../../src/faults/kinds/registry';
import { combineVerdicts, recoveryVerdict } from '../../src/recovery/findings';
import type { RecoveryOutcome, ThreadRecord } from '../../src/recovery/scenario';
import { findingLine } from '../../src/suite-kit/findings';

const MS = 1_000_000n;
const T0 = 10_000n * MS;

function thread(index: number, detectedMs: number | null, recoveredMs: number | null, extra: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    threadIndex: index,
    readyNs: T0 - 1000n * MS,
    detectedNs: detectedMs === null ? null : T0 + BigInt(detectedMs) * MS,
    detectionCause: detectedMs === null ? 'none' : 'reset',
    recoveryStartedNs: null,
    recoveredNs: recoveredMs === null ? null : T0 + BigInt(recoveredMs) * MS,
    faultedLocalPort: 40000 + index,
    reconnectAttempts: 2,
    deliveries: 10,
    falseAlarms: 0,
    ...extra,
  };
}

function outcome(threads: ThreadRecord[], faultEvents: RecoveryOutcome['faultEvents'] = null, problems: string[] = []): RecoveryOutcome {
  return {
    threads,
    proxyServer: { kind: 'embedded', version: '2.12.0', extensions: ['events'] },
    fault: createFault({ kind: 'reset_peer' }, { proxy: { client: new ToxiproxyClient('http://127.0.0.1:9'), name: 'p' } }),
    preFault: null,
    injection: { bracket: { startedNs: T0, completedNs: T0 + 1n * MS }, mode: 'armed' },
    removal: { startedNs: T0 + 50n * MS, completedNs: T0 + 52n * MS, method: 'deleted', problems },
    faultEvents,
    allDetected: true,
    allRecovered: true,
    trafficIntervalMs: 5,
    drainTimeoutMs: 1000,
    cpuCount: 2,
    clockAnchor: null,
  };
}

const rst = (port: number) => ({ at_ns: String(T0 + 2n * MS), kind: 'reset_sent', client: `127.0.0.1:${port}` });

describe('recoveryVerdict', () => {
  it('finds nothing when every thread noticed and came back', () => {
    expect(recoveryVerdict(outcome([thread(0, 3, 100), thread(1, 4, 120)]))).toEqual({ findings: [], harnessProblems: [] });
  });

  it("makes the client's failures findings with their evidence", () => {
    const verdict = recoveryVerdict(
      outcome(
        [
          thread(0, 3, 100, { unhandled: ['unhandled rejection: write ECONNRESET'] }),
          thread(1, null, null),
          thread(2, 5, null),
          thread(3, 5, null, { error: 'no connection within 45000 ms: ECONNREFUSED' }),
        ],
        [rst(40000), rst(40001), rst(40002), rst(40003)],
      ),
    );
    expect(verdict.harnessProblems).toEqual([]);
    expect(verdict.findings.map(findingLine)).toEqual([
      'thread 3: stopped on an error of the client (no connection within 45000 ms: ECONNREFUSED)',
      "thread(s) 1: 1 of 4 thread(s) never noticed the fault (no fault event and no drain deadline passed before the harness removed the fault; the proxy's timeline shows the fault acting on 4 connection(s))",
      'thread(s) 2: 1 of 4 thread(s) noticed the fault but never came back (no round trip after the removal) (thread 2: noticed by reset, 2 reconnection attempt(s))',
      "thread(s) 0: 1 error(s) nobody handled inside the client (an application on Node's defaults would have crashed) (unhandled rejection: write ECONNRESET)",
    ]);
    expect(verdict.findings.map((finding) => finding.kind)).toEqual(['thread_failed', 'not_detected', 'not_recovered', 'unhandled_error']);
  });

  it("makes the harness's own failures harness problems, never findings", () => {
    const verdict = recoveryVerdict(
      outcome([thread(0, 3, 100), thread(1, 3, null, { harnessError: 'toxic was never removed' })], null, ['DELETE answered 500']),
      ['thread 0 detected 0.500 ms before its fault moment'],
    );
    expect(verdict.findings).toEqual([]);
    expect(verdict.harnessProblems).toEqual([
      'thread 1: toxic was never removed',
      'the fault was not undone cleanly: DELETE answered 500',
      'thread 0 detected 0.500 ms before its fault moment (not timed: a fault not ours, or the clocks disagree)',
    ]);
  });

  it('a fault the timeline shows acting on nothing, noticed by nobody, is the harness’s: nothing to notice', () => {
    const verdict = recoveryVerdict(outcome([thread(0, null, null), thread(1, null, null)], []));
    expect(verdict.findings).toEqual([]);
    expect(verdict.harnessProblems).toEqual([
      "the fault acted on no connection (the proxy's timeline shows none since the injection): nothing to notice",
    ]);
    // Without a timeline (real Toxiproxy) the harness cannot tell: the client's finding.
    expect(recoveryVerdict(outcome([thread(0, null, null)], null)).findings.map((finding) => finding.kind)).toEqual(['not_detected']);
  });
});

describe('combineVerdicts', () => {
  it('says which replicate each item came from', () => {
    const one = recoveryVerdict(outcome([thread(0, 3, 100)]));
    const two = recoveryVerdict(outcome([thread(0, 3, null)], null, ['gone']));
    expect(combineVerdicts([one])).toBe(one);
    const combined = combineVerdicts([one, two]);
    expect(combined.findings.map((finding) => finding.where)).toEqual(['thread(s) 0 (replicate 2)']);
    expect(combined.harnessProblems).toEqual(['the fault was not undone cleanly: gone (replicate 2)']);
  });
});
