/**
 * The fault timeline against a packet capture (pure): matching each connection to its RST, the
 * differences, and when the two sides agree.
 */
import { checkResult, checkTimeline, readRstCapture } from '../../src/verify/capture';
import { captureVerdict } from '../../src/verify/checks';

const PROXY_PORT = 26120;
// Monotonic 1_000_000_000 ns is epoch 1_700_000_000_000 ms.
const ANCHOR = { monotonic_ns: '1000000000', epoch_ms: 1_700_000_000_000 };
const epochOf = (ns: number) => (ANCHOR.epoch_ms + (ns - 1_000_000_000) / 1e6) / 1000;

/** tshark's fields: epoch seconds, source port, destination port. */
function tsv(rows: readonly [number, number, number][]): string {
  return rows.map(([time, source, destination]) => `${time.toFixed(9)}\t${source}\t${destination}`).join('\n');
}

describe('readRstCapture', () => {
  it('keeps the RSTs that left the proxy port, by client port, oldest first', () => {
    const capture = readRstCapture(
      tsv([
        [3, PROXY_PORT, 5001],
        [1, PROXY_PORT, 5001],
        [2, 5002, PROXY_PORT],
        [4, PROXY_PORT, 5003],
      ]) + '\n\n',
      PROXY_PORT,
    );
    expect([...capture.entries()]).toEqual([
      [5001, [1, 3]],
      [5003, [4]],
    ]);
  });
});

describe('checkTimeline', () => {
  const timeline = [
    { client_port: 5001, acted_ns: '2000000000' },
    { client_port: 5002, acted_ns: '2000100000' },
    { client_port: 5003, acted_ns: '2000200000' },
  ];

  it('measures each connection from the timeline to the capture, and both spreads', () => {
    const capture = readRstCapture(
      tsv([
        [epochOf(2_000_000_000) + 0.00001, PROXY_PORT, 5001],
        [epochOf(2_000_100_000) + 0.00002, PROXY_PORT, 5002],
        [epochOf(2_000_200_000) + 0.002, PROXY_PORT, 5003],
      ]),
      PROXY_PORT,
    );
    const outcome = checkTimeline({ clock_anchor: ANCHOR, fault_timeline: timeline }, capture);
    expect(outcome).toMatchObject({ connections: 3, matched: 3, missing: [] });
    expect(outcome.median_diff_ms).toBeCloseTo(0.02, 2);
    expect(outcome.max_abs_diff_ms).toBeCloseTo(2, 1);
    expect(outcome.spread_timeline_ms).toBeCloseTo(0.2, 2);
    expect(outcome.spread_capture_ms).toBeCloseTo(2.19, 1);
  });

  it('names a connection whose RST the capture never saw (or saw more than a second away)', () => {
    const capture = readRstCapture(
      tsv([
        [epochOf(2_000_000_000), PROXY_PORT, 5001],
        [epochOf(2_000_100_000) + 5, PROXY_PORT, 5002],
      ]),
      PROXY_PORT,
    );
    expect(checkTimeline({ clock_anchor: ANCHOR, fault_timeline: timeline }, capture)).toMatchObject({ matched: 1, missing: [5002, 5003] });
  });

  it('skips a result without a timeline or a clock anchor, and checks replicates one by one', () => {
    expect(checkTimeline({ fault_timeline: timeline }, new Map())).toEqual({ skipped: 'no fault timeline or clock anchor in this result' });
    const replicate = { kind: 'recovery', clock_anchor: ANCHOR, fault_timeline: timeline.slice(0, 1) };
    const capture = readRstCapture(tsv([[epochOf(2_000_000_000), PROXY_PORT, 5001]]), PROXY_PORT);
    expect(checkResult({ details: { replicates: [replicate, replicate] } }, capture).map((one) => one.matched)).toEqual([1, 1]);
  });
});

describe('captureVerdict', () => {
  const good = { connections: 10, matched: 10, missing: [], max_abs_diff_ms: 4.4, median_diff_ms: 0.02, spread_diff_ms: 0.1 };

  it('agrees when every connection is found, each median within 1 ms and the spreads within 5 ms (one late connection is reported, not judged)', () => {
    const verdict = captureVerdict([good, good, { skipped: 'no fault timeline or clock anchor in this result' }]);
    expect(verdict).toMatchObject({ status: 'agreed', connections: 20, max_difference_ms: 4.4 });
    expect(verdict.detail).toContain('2 injection(s), 20 connection(s), 20 found in the capture');
  });

  it.each([
    [{ ...good, matched: 9, missing: [5001] }, '1 connection(s) without an RST in the capture'],
    [{ ...good, median_diff_ms: 1.5 }, 'a median beyond 1 ms'],
    [{ ...good, spread_diff_ms: -6 }, 'a spread beyond 5 ms'],
  ])('disagrees otherwise, saying why', (replicate, why) => {
    const verdict = captureVerdict([good, replicate]);
    expect(verdict.status).toBe('disagreed');
    expect(verdict.detail).toContain(why);
  });

  it('disagrees when nothing had a timeline to check', () => {
    expect(captureVerdict([{ skipped: 'no fault timeline or clock anchor in this result' }])).toMatchObject({ status: 'disagreed' });
  });
});
