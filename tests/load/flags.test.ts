/** `bench load` flags: the same resolution as a file, errors naming the flag; `--fault KIND[:ARG]@START+LENGTH`. */
import { flagsToInput, workloadOf } from '../../src/cli/loadCommand';
import { placeFaults } from '../../src/load/checks';
import { parseFaultFlag } from '../../src/load/faultSchedule';

const base = { fault: [] as string[], interval: '1s', proxy: true, catchUp: '10s' };

describe('bench load flags', () => {
  test('flags become a workload', () => {
    const workload = workloadOf(undefined, {
      ...base,
      rate: '5000',
      size: '256',
      producers: '1',
      consumers: '1',
      duration: '60s',
      confirmWindow: '1',
      fault: ['latency:200ms@10s+5s', 'reset_peer@20s+1s'],
    });
    expect(workload).toMatchObject({
      rate: { kind: 'constant', perSecond: 5000 },
      size: { kind: 'fixed', bytes: 256 },
      durationMs: 60_000,
      confirmWindow: 1,
    });
    expect(workload.faults.map((fault) => [fault.spec.kind, fault.atMs, fault.lengthMs])).toEqual([
      ['latency', 10_000, 5000],
      ['reset_peer', 20_000, 1000],
    ]);
  });

  test('a bad flag is named with what to give', () => {
    expect(() => flagsToInput({ ...base, rate: '-5' })).toThrow('--rate must be ≥ 0; got "-5"');
    expect(() => flagsToInput({ ...base, producers: 'two' })).toThrow('--producers must be a whole number ≥ 0; got "two"');
    expect(() => flagsToInput({ ...base, queueType: 'lazy' })).toThrow('--queue-type must be one of classic, quorum, stream; got "lazy"');
    expect(() => flagsToInput({ ...base, fault: ['latency:200ms'] })).toThrow('--fault must be KIND[:ARG]@START+LENGTH');
    expect(() => workloadOf(undefined, { ...base, fault: ['meteor@1s+1s'] })).toThrow(/fault kind must be one of/);
    expect(() => workloadOf(undefined, { ...base, size: '100:10' })).toThrow('--size must be valid (MIN:MAX needs MIN ≤ MAX');
  });

  test('--fault splits at the last @ and +', () => {
    expect(parseFaultFlag('latency:200ms~50ms@10s+5s')).toEqual({ fault: 'latency:200ms~50ms', at: '10s', length: '5s' });
    expect(typeof parseFaultFlag('reset_peer')).toBe('string');
  });
});

describe('bench load: where a node fault goes', () => {
  const withFaults = (fault: string[]) =>
    workloadOf(undefined, { ...base, rate: '100', producers: '1', consumers: '1', duration: '30s', fault });

  test('a broker restart runs on a node of its own, its length the schedule’s and its down time its argument', () => {
    const workload = withFaults(['broker_restart:5s@10s+8s']);
    expect(workload.faults.map((fault) => [fault.spec.kind, fault.spec.options, fault.atMs, fault.lengthMs])).toEqual([
      ['broker_restart', { down_ms: 5000 }, 10_000, 8000],
    ]);
    expect(placeFaults(workload, true)).toEqual({ needsProxy: false, ownNode: true });
  });

  test('an acknowledgement timeout is refused: a load run’s consumers hold no delivery', () => {
    expect(() => placeFaults(withFaults(['ack_timeout@10s+8s']), true)).toThrow(/not ack_timeout in a load run.*bench:faults/);
  });
});
