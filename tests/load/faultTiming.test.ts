/** What a load run says about a fault whose injecting call ran late (a broker CLI call on a loaded machine). */
import { faultTimingNote, type FaultWindowRecord } from '../../src/load/faultSchedule';

const alarm = (injectedAtMs: number, injectionCompletedAtMs: number): FaultWindowRecord => ({
  text: 'alarm',
  kind: 'alarm',
  plannedAtMs: 1000,
  plannedLengthMs: 3000,
  injectedAtMs,
  injectionCompletedAtMs,
  removedAtMs: injectionCompletedAtMs + 500,
  referenceAtMs: injectedAtMs,
  record: null,
  error: null,
});

describe('a fault’s timing note', () => {
  test('in place only after publishing ended: nothing was published under it', () => {
    expect(faultTimingNote(alarm(1001.3, 7638.1), 5002.4)).toBe(
      'fault alarm: its injecting call took 6637 ms, so it was in place only from 7638 ms, after publishing ended (5002 ms): nothing was published under it',
    );
  });

  test('a call longer than the planned length: removed as soon as it was in place', () => {
    expect(faultTimingNote(alarm(1000, 4500), 8000)).toBe(
      'fault alarm: its injecting call took 3500 ms, longer than its planned length (3000 ms): it was removed as soon as it was in place',
    );
  });

  test('nothing to say of a fault in place in time, or never injected', () => {
    expect(faultTimingNote(alarm(1000, 1400), 8000)).toBeNull();
    expect(faultTimingNote({ ...alarm(1000, 1400), injectedAtMs: null, injectionCompletedAtMs: null }, 8000)).toBeNull();
  });
});
