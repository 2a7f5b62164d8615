import { parseBareRecoveryReport } from '../../src/recovery/bareConsumers';

describe('parseBareRecoveryReport', () => {
  const record = {
    thread: 0,
    local_port: 40001,
    ready_ns: '1000',
    detected_ns: '5000000',
    cause: 'reset',
    recovery_started_ns: '9000000',
    recovered_ns: '12000000',
    attempts: 1,
    deliveries: 7,
  };

  it('reads each thread’s moments as monotonic ns, in thread order', () => {
    const line = JSON.stringify({
      threads: [record, { ...record, thread: 1, local_port: 40002, detected_ns: null, cause: 'none', error: 'x' }],
    });
    expect(parseBareRecoveryReport(line, 2)).toEqual([
      {
        threadIndex: 0,
        readyNs: 1000n,
        detectedNs: 5_000_000n,
        detectionCause: 'reset',
        recoveryStartedNs: 9_000_000n,
        recoveredNs: 12_000_000n,
        faultedLocalPort: 40001,
        reconnectAttempts: 1,
        deliveries: 7,
        falseAlarms: 0,
      },
      expect.objectContaining({ threadIndex: 1, detectedNs: null, detectionCause: 'none', faultedLocalPort: 40002, error: 'x' }),
    ]);
  });

  it('calls an unknown cause an error', () => {
    expect(parseBareRecoveryReport(JSON.stringify({ threads: [{ ...record, cause: 'gremlins' }] }), 1)[0]!.detectionCause).toBe('error');
  });

  it('says what is wrong with a line that is not a report of every thread', () => {
    expect(() => parseBareRecoveryReport('oops', 1)).toThrow('bare-recovery printed a line that is not JSON: "oops"');
    expect(() => parseBareRecoveryReport(JSON.stringify({ threads: [record] }), 2)).toThrow(/^bare-recovery should report 2 threads; got /);
  });
});
