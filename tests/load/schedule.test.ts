/** The open-loop schedule: each message's intended send time for a constant rate, steps and a ramp. */
import { scheduleOf } from '../../src/load/schedule';

const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;

describe('open-loop schedule', () => {
  test('a constant rate spaces messages 1/rate apart from the start', () => {
    const schedule = scheduleOf({ kind: 'constant', perSecond: 2000 });
    expect(schedule.paced).toBe(true);
    expect([0, 1, 2, 1999, 2000].map((index) => ms(schedule.intendedOffsetNs(index)))).toEqual([0, 0.5, 1, 999.5, 1000]);
    expect(schedule.dueBy(0)).toBe(0);
    expect(schedule.dueBy(1e9)).toBe(2000);
    expect(schedule.dueBy(30e9)).toBe(60_000);
  });

  test('rate 0 is unpaced: every message is due at once', () => {
    const schedule = scheduleOf({ kind: 'constant', perSecond: 0 });
    expect(schedule.paced).toBe(false);
    expect(schedule.dueBy(1)).toBe(Number.POSITIVE_INFINITY);
  });

  test('steps hold each rate for its duration, the last to the end', () => {
    const schedule = scheduleOf({
      kind: 'steps',
      steps: [
        { perSecond: 100, durationMs: 1000 },
        { perSecond: 1000, durationMs: 1000 },
      ],
    });
    expect(ms(schedule.intendedOffsetNs(99))).toBe(990);
    expect(ms(schedule.intendedOffsetNs(100))).toBe(1000);
    expect(ms(schedule.intendedOffsetNs(101))).toBe(1001);
    expect(ms(schedule.intendedOffsetNs(1100))).toBe(2000);
    expect(ms(schedule.intendedOffsetNs(2100))).toBe(3000);
    expect(schedule.dueBy(1e9)).toBe(100);
    expect(schedule.dueBy(2e9)).toBe(1100);
    expect(schedule.dueBy(3e9)).toBe(2100);
  });

  test('a ramp rises linearly: N(t) = from t + (to - from) t² / 2D, then holds its end rate', () => {
    const schedule = scheduleOf({ kind: 'ramp', fromPerSecond: 0, toPerSecond: 1000, durationMs: 10_000 });
    // N(t) = 50 t²: message 50 at 1 s, 200 at 2 s, 5000 at the end (10 s), then 1000/s.
    expect(ms(schedule.intendedOffsetNs(50))).toBe(1000);
    expect(ms(schedule.intendedOffsetNs(200))).toBe(2000);
    expect(ms(schedule.intendedOffsetNs(5000))).toBe(10_000);
    expect(ms(schedule.intendedOffsetNs(6000))).toBe(11_000);
    expect(schedule.dueBy(2e9)).toBe(200);
    expect(schedule.dueBy(11e9)).toBe(6000);
  });

  test('a flat ramp is a constant rate', () => {
    const schedule = scheduleOf({ kind: 'ramp', fromPerSecond: 500, toPerSecond: 500, durationMs: 4000 });
    expect(ms(schedule.intendedOffsetNs(1000))).toBe(2000);
  });

  test('intended times never go backwards', () => {
    for (const plan of [
      { kind: 'ramp', fromPerSecond: 500, toPerSecond: 4000, durationMs: 20_000 },
      { kind: 'ramp', fromPerSecond: 4000, toPerSecond: 500, durationMs: 5000 },
      {
        kind: 'steps',
        steps: [
          { perSecond: 3, durationMs: 700 },
          { perSecond: 7000, durationMs: 300 },
        ],
      },
    ] as const) {
      const schedule = scheduleOf(plan);
      let previous = -1;
      for (let index = 0; index < 20_000; index += 1) {
        const offset = schedule.intendedOffsetNs(index);
        expect(offset).toBeGreaterThanOrEqual(previous);
        previous = offset;
      }
    }
  });
});
