import { ToxiproxyClient } from '../../src/faults';
import { createFault } from '../../src/faults/kinds/registry';
import { computeRecoveryMetrics } from '../../src/recovery/metrics';
import { schemaProblem } from '../../src/results/schemas';
import type { RecoveryOutcome, ThreadRecord } from '../../src/recovery/scenario';

/** A fault of the model as a scenario builds it (nothing is sent: the proxy is never called). */
const faultOf = (kind: string) => createFault({ kind }, { proxy: { client: new ToxiproxyClient('http://127.0.0.1:9'), name: 'p' } });

const MS = 1_000_000n;
const T0 = 10_000n * MS;

function thread(index: number, detectedMs: number | null, recoveredMs: number | null, extra: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    threadIndex: index,
    readyNs: T0 - 1000n * MS,
    detectedNs: detectedMs === null ? null : T0 + BigInt(Math.round(detectedMs * 1000)) * 1000n,
    detectionCause: detectedMs === null ? 'none' : 'reset',
    recoveryStartedNs: null,
    recoveredNs: recoveredMs === null ? null : T0 + BigInt(recoveredMs) * MS,
    faultedLocalPort: 40000 + index,
    reconnectAttempts: 1,
    deliveries: 10,
    falseAlarms: 0,
    ...extra,
  };
}

const TOXIPROXY = { kind: 'toxiproxy', version: '2.12.0', extensions: [] } as const;
const EMBEDDED = { kind: 'embedded', version: '2.12.0', extensions: ['events', 'connections'] } as const;

function outcome(threads: ThreadRecord[], events: RecoveryOutcome['faultEvents'] = null, kind = 'reset_peer'): RecoveryOutcome {
  return {
    threads,
    proxyServer: events === null ? TOXIPROXY : EMBEDDED,
    fault: faultOf(kind),
    preFault: null,
    injection: { bracket: { startedNs: T0, completedNs: T0 + 1n * MS }, mode: kind === 'reset_peer' ? 'armed' : 'added' },
    removal: { startedNs: T0 + 50n * MS, completedNs: T0 + 52n * MS, method: 'deleted', problems: [] },
    faultEvents: events,
    allDetected: true,
    allRecovered: true,
    trafficIntervalMs: 5,
    drainTimeoutMs: 1000,
    cpuCount: 2,
    clockAnchor: null,
  };
}

describe('computeRecoveryMetrics', () => {
  it('times from the injection call when the proxy has no timeline (real Toxiproxy): upper bounds, not scored', () => {
    const result = computeRecoveryMetrics(outcome([thread(0, 3, 200), thread(1, 8, 300)]));
    expect(result.metrics.error_detection_latency_ms!.value).toBe(3);
    expect(result.metrics.error_propagation_latency_ms!.value).toBe(8);
    expect(result.metrics.full_recovery_latency_ms!.value).toBe(300);
    expect(result.metrics.recovery_after_removal_ms!.value).toBe(248);
    expect(result.metrics.threads_detected!.value).toBe(2);
    expect(result.metrics.threads_recovered!.value).toBe(2);
    expect(result.metrics.injection_to_fault_ms!.value).toBeNull();
    expect(result.targets).toEqual([
      {
        metric: 'error_detection_latency_ms',
        comparator: '<',
        threshold: 10,
        unit: 'ms',
        met: null,
        reason: expect.stringMatching(
          /^an upper bound: timed from the start of the injecting call .*not scored against the exact-moment target$/,
        ),
      },
      {
        metric: 'full_recovery_latency_ms',
        comparator: '<',
        threshold: 5000,
        unit: 'ms',
        met: null,
        reason: expect.stringMatching(/upper bound.*\(being below 5000 ms, so is the exact figure\)$/),
      },
    ]);
    expect(result.notes[0]).toMatch(/start of the injecting call \(every latency from it is an upper bound\)/);
    expect(result.fault.reference).toEqual({ source: 'api_call_start', exact: false, description: expect.stringMatching(/upper bound/) });
    expect(result.faultProxy).toEqual({ kind: 'toxiproxy', version: '2.12.0', label: 'Toxiproxy 2.12.0' });
  });

  it('records what each thread received, and scores the RST target only when every thread got an RST', () => {
    const events = [
      { at_ns: String(T0 + 4n * MS), kind: 'reset_sent', client: '127.0.0.1:40000' },
      { at_ns: String(T0 + 4n * MS), kind: 'reset_sent', client: '127.0.0.1:40001' },
    ];
    const rst = computeRecoveryMetrics(outcome([thread(0, 5, 100), thread(1, 6, 100)], events));
    expect(rst.fault).toEqual({
      kind: 'reset_peer',
      label: 'TCP reset',
      target: { type: 'proxy_entry', name: 'p' },
      parameters: { timeout_ms: 0, armed: true },
      toxic: 'reset_peer',
      injection: 'armed',
      reference: { source: 'proxy_timeline', exact: true, description: 'proxy fault timeline (first RST sent)' },
      received: { reset: 2 },
      received_per_thread: ['reset', 'reset'],
      expected: 'reset',
      as_expected: true,
      removal: 'deleted',
    });
    expect(rst.targets[0]).toEqual({
      metric: 'error_detection_latency_ms',
      comparator: '<',
      threshold: 10,
      unit: 'ms',
      met: true,
      verdict: 'met',
      interval: { low: 1, high: 1, confidence: 1, n: 1 },
    });

    const fin = computeRecoveryMetrics(
      outcome([thread(0, 5, 100, { detectionCause: 'closed' }), thread(1, 6, 100, { detectionCause: 'reset' })], events),
    );
    expect(fin.fault.received).toEqual({ closed: 1, reset: 1 });
    expect(fin.fault.as_expected).toBe(false);
    expect(fin.targets[0]).toMatchObject({
      met: null,
      reason: 'the clients received FIN ×1, RST ×1, not RST only: not scored as TCP reset detection',
    });
    expect(fin.notes).toContain('the clients received FIN ×1, RST ×1, not RST only: not scored as TCP reset detection');
    expect(fin.targets[1]).toMatchObject({ met: true });
  });

  it('expects no single kind from a partition (silence or a close are both how it is noticed)', () => {
    const result = computeRecoveryMetrics(outcome([thread(0, 100, 300, { detectionCause: 'deadline' })], null, 'partition'));
    expect(result.fault).toMatchObject({ received: { deadline: 1 }, expected: null, as_expected: null });
  });

  it('times from the RST the proxy really sent, per thread from its own connection', () => {
    const events = [
      { at_ns: String(T0 + 4n * MS), kind: 'reset_sent', client: '127.0.0.1:40000' },
      { at_ns: String(T0 + 6n * MS), kind: 'reset_sent', client: '127.0.0.1:40001' },
    ];
    const result = computeRecoveryMetrics(outcome([thread(0, 4.5, 100), thread(1, 7, 120)], events));
    expect(result.metrics.injection_to_fault_ms!.value).toBe(4);
    expect(result.details.injection_bracket_ns).toEqual({ started: String(T0), completed: String(T0 + 1n * MS) });
    expect(result.details.fault_acted_ns).toBe(String(T0 + 4n * MS));
    // First detection 0.5 ms after the first RST; last 3 ms after it.
    expect(result.metrics.error_detection_latency_ms!.value).toBe(0.5);
    expect(result.metrics.error_propagation_latency_ms!.value).toBe(3);
    // Per thread: 0.5 ms after its own RST, and 1 ms after its own.
    expect(result.samples.thread_detection_ms).toEqual([0.5, 1]);
    expect(result.metrics.thread_detection_max_ms!.value).toBe(1);
  });

  it('flags a detection earlier than its fault moment instead of reporting a negative latency', () => {
    const events = [{ at_ns: String(T0 + 5n * MS), kind: 'reset_sent', client: '127.0.0.1:40000' }];
    const result = computeRecoveryMetrics(outcome([thread(0, 2, 100), thread(1, 6, 100)], events));
    expect(result.samples.thread_detection_ms!.every((value) => value >= 0)).toBe(true);
    expect(result.metrics.threads_detected!.value).toBe(1);
    expect(result.details.clock_disagreements).toEqual(['thread 0 detected 3.000 ms before its fault moment']);
    expect(result.notes.some((note) => note.includes('clock disagreement'))).toBe(true);
  });

  it('counts threads that never detected or never recovered, and gives no full-recovery figure then', () => {
    const result = computeRecoveryMetrics(
      outcome([thread(0, 5, 100), thread(1, null, null, { error: 'toxic was never removed' })], null, 'partition'),
    );
    expect(result.metrics.threads_detected!.value).toBe(1);
    expect(result.metrics.threads_recovered!.value).toBe(1);
    expect(result.metrics.full_recovery_latency_ms!.value).toBeNull();
    expect(result.targets[1]!.met).toBeNull();
    expect(result.targets[0]!.threshold).toBe(200);
  });

  it('records the fault spread from the timeline, and each thread from the fault on its own connection', () => {
    // RSTs at 4, 6 and 10 ms (the third on a connection no thread claims); thread 2's port is not in the timeline.
    const events = [
      { at_ns: String(T0 + 6n * MS), kind: 'reset_sent', connection_id: 2, client: '127.0.0.1:40001' },
      { at_ns: String(T0 + 4n * MS), kind: 'reset_sent', connection_id: 1, client: '127.0.0.1:40000' },
      { at_ns: String(T0 + 10n * MS), kind: 'reset_sent', connection_id: 3, client: '127.0.0.1:49999' },
      { at_ns: String(T0 + 1n * MS), kind: 'connection_opened', connection_id: 4, client: '127.0.0.1:40002' },
    ];
    const result = computeRecoveryMetrics(outcome([thread(0, 5, 100), thread(1, 8, 120), thread(2, 9, 130)], events));
    expect(result.metrics.fault_spread_ms).toEqual({ value: 6, unit: 'ms', direction: 'none' });
    expect(result.metrics.threads_timed_from_own_fault!.value).toBe(2);
    expect(result.details.fault_spread).toEqual({
      first_ns: String(T0 + 4n * MS),
      last_ns: String(T0 + 10n * MS),
      spread_ms: 6,
      connections: 3,
    });
    expect(result.details.fault_timeline).toEqual([
      { client_port: 40000, acted_ns: String(T0 + 4n * MS) },
      { client_port: 40001, acted_ns: String(T0 + 6n * MS) },
      { client_port: 49999, acted_ns: String(T0 + 10n * MS) },
    ]);
    // Thread 0: 1 ms after its own RST (at 4); thread 1: 2 ms after its own (at 6); thread 2: 5 ms after the first (at 4).
    expect(result.samples.thread_detection_ms).toEqual([1, 2, 5]);
    expect(result.metrics.thread_detection_p50_ms!.value).toBe(2);
    expect(result.metrics.thread_detection_max_ms!.value).toBe(5);
    // The details follow their schema, alone and inside a raw result (where `kind` selects it).
    expect(schemaProblem('recovery-details.schema.json', result.details)).toBeUndefined();
    const threads = result.details.threads;
    expect(threads.map((one) => one.fault_after_reference_ms)).toEqual([0, 2, null]);
    expect(threads.map((one) => one.detected_after_reference_ms)).toEqual([1, 4, 5]);
    expect(threads.map((one) => one.recovered_after_reference_ms)).toEqual([96, 116, 126]);
    expect(result.details.removal_after_reference_ms).toBe(48);
    expect(result.notes).toContain(
      "fault_spread_ms: the proxy's timeline puts the fault on 3 connection(s) over 6.000 ms (first to last); 2 of 3 thread(s) timed from the fault on their own connection, the others from the first",
    );
  });

  it('has no fault spread without a timeline, and says why', () => {
    const result = computeRecoveryMetrics(outcome([thread(0, 3, 200)]));
    expect(result.metrics.fault_spread_ms).toEqual({ value: null, unit: 'ms', direction: 'none' });
    expect(result.metrics.threads_timed_from_own_fault!.value).toBe(0);
    expect(result.details.fault_spread).toBeNull();
    expect(result.notes).toContain(
      'fault_spread_ms: not measured — this proxy has no fault timeline (real Toxiproxy); a packet capture of its listen port can give it (docs: methodology)',
    );
  });

  it('says the figure is bound by the machine when there are more threads than cores', () => {
    const events = [
      { at_ns: String(T0 + 4n * MS), kind: 'reset_sent', client: '127.0.0.1:40000' },
      { at_ns: String(T0 + 7n * MS), kind: 'reset_sent', client: '127.0.0.1:40001' },
      { at_ns: String(T0 + 9n * MS), kind: 'reset_sent', client: '127.0.0.1:40002' },
    ];
    const three = [thread(0, 5, 100), thread(1, 8, 100), thread(2, 10, 100)];
    const bound = computeRecoveryMetrics(outcome(three, events));
    expect(bound.details.machine).toEqual({ threads: 3, cpu_count: 2, machine_bound: true });
    expect(bound.notes.find((note) => note.startsWith('bound:'))).toMatch(
      /^bound: the machine — 3 consumer threads share 2 cores with the broker and the fault proxy, .*the proxy took 5\.0 ms from its first to its last reset/,
    );
    const free = computeRecoveryMetrics({ ...outcome(three, events), cpuCount: 4 });
    expect(free.details.machine).toEqual({ threads: 3, cpu_count: 4, machine_bound: false });
    expect(free.notes.find((note) => note.startsWith('bound:'))).toBe(
      'bound: 3 consumer thread(s) on 4 cores, shared with the broker and the fault proxy; the proxy took 5.0 ms from its first to its last reset (fault_spread_ms)',
    );
  });

  it("writes details its schema accepts, and the raw result's schema rejects recovery details that lost a field", () => {
    const withoutTimeline = computeRecoveryMetrics(outcome([thread(0, 5, 100)]));
    expect(schemaProblem('recovery-details.schema.json', withoutTimeline.details)).toBeUndefined();
    const rawResult = {
      schema_version: 1,
      test_id: 't',
      name: 'recovery_after_reset_peer',
      category: 'recovery',
      parameters: {},
      metrics: {},
      timestamp: '2026-11-25T00:00:00Z',
      fingerprint: 'f',
    };
    const { threads: _threads, ...noThreads } = withoutTimeline.details;
    const problem = (details: unknown) => schemaProblem('raw-result.schema.json', { ...rawResult, details });
    expect(problem(withoutTimeline.details)).toBeUndefined();
    expect(problem({ replicates: [withoutTimeline.details, withoutTimeline.details] })).toBeUndefined();
    expect(problem(noThreads)).toMatch(/must have required property 'threads'/);
    expect(problem({ replicates: [withoutTimeline.details, noThreads] })).toMatch(
      /\/details\/replicates\/1 must have required property 'threads'/,
    );
    // Older results (no kind) are not held to it.
    expect(problem({ threads: [{ thread: 0 }] })).toBeUndefined();
  });
});
