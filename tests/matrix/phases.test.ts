/** Where a silence meets each thread's heartbeat interval (pure): the stagger, the wait for the grid, the measured phase. */
import { delayToPhaseMs, firstThreadPhase, openDelayMs, phaseOf } from '../../src/matrix/phases';

const MS = 1_000_000n;

describe('heartbeat phases', () => {
  it('staggers five connections over one interval, and none without an interval', () => {
    expect([0, 1, 2, 3, 4].map((thread) => openDelayMs(thread, 5, 5000))).toEqual([0, 1000, 2000, 3000, 4000]);
    expect(openDelayMs(3, 5, undefined)).toBe(0);
    expect(openDelayMs(0, 1, 5000)).toBe(0);
  });

  it('puts thread 0 at the last midpoint of the grid, so five threads meet 0.9, 0.7, 0.5, 0.3 and 0.1', () => {
    const first = firstThreadPhase(5);
    expect(first).toBeCloseTo(0.9);
    expect([0, 1, 2, 3, 4].map((thread) => Math.round((first - thread / 5) * 10) / 10)).toEqual([0.9, 0.7, 0.5, 0.3, 0.1]);
  });

  it('waits from now until thread 0 is at the phase again (within one interval)', () => {
    const opened = 1000n * MS;
    // 12.3 s after opening at a 5 s interval: 2.3 s into it; phase 0.9 is 4.5 s in: 2.2 s to wait.
    expect(delayToPhaseMs(opened, opened + 12_300n * MS, 5000, 0.9)).toBeCloseTo(2200, 6);
    // Past it (4.8 s in): the next interval's.
    expect(delayToPhaseMs(opened, opened + 14_800n * MS, 5000, 0.9)).toBeCloseTo(4700, 6);
    expect(delayToPhaseMs(opened, opened + 14_500n * MS, 5000, 0.9)).toBe(0);
  });

  it("measures a fault's phase from the connection's opening", () => {
    const opened = 1000n * MS;
    expect(phaseOf(opened + 13_500n * MS, opened, 5000)).toBeCloseTo(0.7, 9);
    expect(phaseOf(opened + 5000n * MS, opened, 5000)).toBe(0);
  });
});
