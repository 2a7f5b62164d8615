/**
 * The herd's figures from known moments: attempts binned per 100 ms from the drop (the ones before
 * it left out), failed attempts, the peak and its share of the herd (a fixed delay shows as one
 * spike), and the time until the last connection consumed again — or how many never did.
 */
import { parseShare } from '../../src/cli/herdCommand';
import { herdFigures, herdFindings, type HerdConnectionTimes, type SeenConnection } from '../../src/fleet/herd/figures';
import { attemptsSparkline } from '../../src/report/herdReport';

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

  test('the spread of the attempts: a fixed delay is one bin wide, a backoff wider', () => {
    const fixed = herdFigures(
      times([5100]),
      Array.from({ length: 10 }, (_, index) => seenAt(5000 + index * 3)),
      dropNs,
    );
    expect(fixed.attemptMomentsMs).toEqual({ first: 5000, p10: 5000, p50: 5012, p90: 5024, last: 5027, p10ToP90: 24 });
    const spread = herdFigures(
      times([900]),
      [120, 180, 260, 410, 430, 890].map((ms) => seenAt(ms)),
      dropNs,
    );
    expect(spread.attemptMomentsMs).toMatchObject({ first: 120, p10: 120, p90: 890, last: 890, p10ToP90: 770 });
    expect(herdFigures(times([null]), [], dropNs).attemptMomentsMs).toBeNull();
  });

  test('findings: a burst above the stated share, connections never back; none for a spread herd', () => {
    const burst = herdFigures(times([5100, null]), [seenAt(5000), seenAt(5040)], dropNs);
    const findings = herdFindings(burst, 0.5, 90_000);
    expect(findings).toHaveLength(2);
    expect(findings[0]).toMatch(/^attempts came as one burst: 2 of 2 connections \(100 %\) attempted within 100 ms, 5\.0 s after the drop/);
    expect(findings[1]).toMatch(/^1 of 2 connections never consumed again within 90 s/);
    const spread = herdFigures(times([150, 300, 450, 900]), [seenAt(120), seenAt(260), seenAt(410), seenAt(890)], dropNs);
    expect(herdFindings(spread, 0.5, 90_000)).toEqual([]);
    // Exactly the share is not above it.
    expect(herdFindings(spread, 0.25, 90_000)).toEqual([]);
    expect(herdFindings(spread, 0.2, 90_000)).toHaveLength(1);
  });

  test('the small chart in text: one character per bin scaled to the peak, long herds grouped', () => {
    expect(attemptsSparkline([0, 0, 10])).toBe('`  █`');
    expect(attemptsSparkline([1, 4, 8])).toBe('`▁▄█`');
    expect(attemptsSparkline([])).toBe('–');
    const long = attemptsSparkline([...Array.from({ length: 119 }, () => 0), 5]);
    expect(long).toMatch(/^`\s{59}█` \(0\.2 s a character\)$/);
  });

  test('--burst-share: a percentage or a fraction; outside (0, 100 %] refused', () => {
    expect(parseShare('50%')).toBe(0.5);
    expect(parseShare('25')).toBe(0.25);
    expect(parseShare('0.3')).toBe(0.3);
    expect(() => parseShare('0')).toThrow(/--burst-share/);
    expect(() => parseShare('150%')).toThrow(/--burst-share/);
    expect(() => parseShare('half')).toThrow(/--burst-share/);
  });
});
