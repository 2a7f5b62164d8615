/**
 * The herd's figures from known moments: attempts binned per 100 ms from the drop (the ones before
 * it left out), failed attempts, the peak and its share of the herd (a fixed delay shows as one
 * spike), and the time until the last connection consumed again — or how many never did.
 */
import { herdFigures, type HerdConnectionTimes, type SeenConnection } from '../../src/fleet/herd/figures';

const MS = 1_000_000n;
const dropNs = 1_000_000_000n;
const seenAt = (ms: number, reachedBroker = true): SeenConnection => ({ openedAtNs: dropNs + BigInt(ms) * MS, reachedBroker });
const times = (backMs: readonly (number | null)[]): HerdConnectionTimes[] =>
  backMs.map((ms, index) => ({
    name: `c${index}`,
    faultNs: dropNs + 5n * MS,
    consumedAgainNs: ms === null ? null : dropNs + BigInt(ms) * MS,
  }));

describe('herd figures', () => {
  test('a fixed delay: every attempt in one 100 ms bin, five seconds after the drop', () => {
    const seen = [seenAt(-3000), ...Array.from({ length: 10 }, (_, index) => seenAt(5000 + index * 3))];
    const figures = herdFigures(times(Array.from({ length: 10 }, (_, index) => 5010 + index * 3)), seen, dropNs);
    expect(figures.attempts).toBe(10); // the connection opened before the drop is not an attempt
    expect(figures.attemptsPerBin).toHaveLength(51);
    expect(figures.attemptsPerBin[50]).toBe(10);
    expect(figures.peakAttempts).toBe(10);
    expect(figures.peakAtMs).toBe(5000);
    expect(figures.peakShare).toBe(1);
    expect(figures.allBackMs).toBe(5037);
    expect(figures.backMs).toEqual({ p50: 5022, p90: 5034, max: 5037 });
  });

  test('a jittered backoff: attempts spread over bins, failed ones counted, the peak a small share', () => {
    const seen = [seenAt(120), seenAt(180, false), seenAt(260), seenAt(410), seenAt(430, false), seenAt(890)];
    const figures = herdFigures(times([150, 300, 450, 900]), seen, dropNs);
    expect(figures.attemptsPerBin).toEqual([0, 2, 1, 0, 2, 0, 0, 0, 1]);
    expect(figures.failedAttempts).toBe(2);
    expect(figures.peakAttempts).toBe(2);
    expect(figures.peakAtMs).toBe(100);
    expect(figures.peakShare).toBe(0.5);
    expect(figures.allBackMs).toBe(900);
  });

  test('a connection that never consumed again: no all-back time, counted', () => {
    const figures = herdFigures(times([100, null, 300]), [seenAt(90)], dropNs);
    expect(figures.allBackMs).toBeNull();
    expect(figures.neverBack).toBe(1);
    expect(figures.backMs.max).toBe(300);
  });
});
