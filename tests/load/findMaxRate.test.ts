/** The max-rate search: doubling, then bisection, against a fake system with a known knee. */
import { judgeProbe, searchMaxRate } from '../../src/load/findMaxRate';

/** A system that keeps up to `knee` msg/s with p99 2 ms, and falls behind above it. */
function system(knee: number) {
  const asked: number[] = [];
  const probe = async (ratePerSecond: number) => {
    asked.push(ratePerSecond);
    return ratePerSecond <= knee
      ? { ratePerSecond, achievedFraction: 1, e2eP99Ms: 2 }
      : { ratePerSecond, achievedFraction: knee / ratePerSecond, e2eP99Ms: 500 };
  };
  return { asked, probe };
}

const options = { unloadedP99Ms: 1.5, p99BoundMs: 10, startRatePerSecond: 1000, maxRatePerSecond: 200_000, resolution: 0.05 };

describe('find max rate', () => {
  test('doubles until a probe fails, then bisects to within 5%', async () => {
    const { asked, probe } = system(11_000);
    const result = await searchMaxRate(probe, options);
    expect(asked.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 16_000]);
    expect(result.maxRatePerSecond).toBeLessThanOrEqual(11_000);
    expect(result.maxRatePerSecond).toBeGreaterThan(11_000 * 0.95);
    expect(result.probes.every((each) => each.passed === each.ratePerSecond <= 11_000)).toBe(true);
  });

  test('none passes when even the start rate fails', async () => {
    const { probe } = system(500);
    expect((await searchMaxRate(probe, options)).maxRatePerSecond).toBeNull();
  });

  test('a probe fails on the achieved rate or on p99, saying which', () => {
    expect(judgeProbe({ ratePerSecond: 1, achievedFraction: 0.98, e2eP99Ms: 1 }, options).reason).toMatch(/achieved 98\.00% .*< 99%/);
    expect(judgeProbe({ ratePerSecond: 1, achievedFraction: 1, e2eP99Ms: 12 }, options).reason).toBe(
      'e2e p99 12 ms > 11.50 ms (unloaded p99 1.5 + 10)',
    );
    expect(judgeProbe({ ratePerSecond: 1, achievedFraction: 0.99, e2eP99Ms: 11.5 }, options).passed).toBe(true);
  });
});
