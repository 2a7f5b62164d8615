import { createLatencyHistogram, decodeHistogram, recordLatencyNs } from '../../src/measure/histogram';
import type { PublishThroughputOutcome } from '../../src/throughput/measure';
import { resolvePublishWorkload } from '../../src/throughput/plan';
import { PublishBoard, PublishControl } from '../../src/throughput/publishBoard';
import { combineWorkerRounds, overheadRatioPercent, rateOf, roundFigure, summarizeRates } from '../../src/throughput/rates';
import { harnessOverheadResult, publishThroughputResult } from '../../src/throughput/result';
import { unsettledPublishFinding } from '../../src/throughput/unsettled';
import type { RoundOutcome } from '../../src/throughput/session';

/** A wait stopped by its abort word must end before this; under the unit tier's 10 s test bound. */
const WAIT_BOUND_MS = 8000;

describe('round rates', () => {
  it('takes a round from the earliest start to the latest completion, counts summed', () => {
    const combined = combineWorkerRounds([
      { startedNs: 1_000_000n, completedNs: 51_000_000n, published: 100, errors: 0, unsettled: 1 },
      { startedNs: 2_000_000n, completedNs: 101_000_000n, published: 150, errors: 2, unsettled: 0 },
    ]);
    expect(combined).toEqual({
      startedNs: 1_000_000n,
      completedNs: 101_000_000n,
      durationMs: 100,
      published: 250,
      errors: 2,
      unsettled: 1,
    });
  });

  it('computes messages and megabytes (10^6 bytes) per second', () => {
    expect(rateOf(1000, 256, 100)).toEqual({ msgsPerSec: 10_000, mbPerSec: 2.56 });
    expect(rateOf(500, 4096, 250).msgsPerSec).toBe(2000);
    expect(rateOf(500, 4096, 250).mbPerSec).toBeCloseTo(8.192, 10);
  });

  it('refuses a rate over no time', () => {
    expect(() => rateOf(10, 256, 0)).toThrow('a rate needs a positive duration; got 0 ms');
  });

  it('summarises rounds by their median, with the spread', () => {
    expect(summarizeRates([30, 10, 20])).toEqual({ median: 20, min: 10, max: 30, spreadPercent: 100, rounds: 3 });
    expect(summarizeRates([10, 20, 30, 40]).median).toBe(25);
  });

  it('expresses the overhead as harness / bare in percent', () => {
    expect(overheadRatioPercent(45_000, 50_000)).toBe(90);
    expect(() => overheadRatioPercent(1, 0)).toThrow('the bare rate must be positive; got 0');
  });

  it('rounds figures to 4 significant digits below 1000 and to whole numbers above', () => {
    expect(roundFigure(12_345.678)).toBe(12_346);
    expect(roundFigure(2.56789)).toBe(2.568);
    expect(roundFigure(0.0021234)).toBe(0.002123);
  });
});

describe('PublishBoard', () => {
  it("hands a worker's round figures to the main thread through shared memory", () => {
    const main = new PublishBoard(3);
    const worker = new PublishBoard(3, main.buffer);
    worker.writeRound(2, { startedNs: 123_456_789_012n, completedNs: 123_999_999_999n, published: 2500, errors: 1, unsettled: 3 });
    worker.writeRound(1, { startedNs: 1n, completedNs: 2n, published: 7, errors: 0, unsettled: 0 });
    expect(main.readRound(2)).toEqual({
      startedNs: 123_456_789_012n,
      completedNs: 123_999_999_999n,
      published: 2500,
      errors: 1,
      unsettled: 3,
    });
    expect(main.readRound(1)).toEqual({ startedNs: 1n, completedNs: 2n, published: 7, errors: 0, unsettled: 0 });
    expect(main.readRound(0)).toEqual({ startedNs: 0n, completedNs: 0n, published: 0, errors: 0, unsettled: 0 });
  });

  it('waits for a counter, gives up at the bound, and stops waiting when the abort word is raised', async () => {
    const board = new PublishBoard(1);
    setTimeout(() => board.count(PublishControl.DONE), 10);
    await expect(board.waitFor(PublishControl.DONE, 1, 2000)).resolves.toBe(true);
    await expect(board.waitFor(PublishControl.DONE, 2, 30)).resolves.toBe(false);
    setTimeout(() => board.raise(PublishControl.FAILED), 10);
    const startedMs = Date.now();
    await expect(board.waitFor(PublishControl.DONE, 2, WAIT_BOUND_MS, PublishControl.FAILED, 20)).resolves.toBe(false);
    // Stopped by the abort word, not at the bound (the only difference between the two is when).
    expect(Date.now() - startedMs).toBeLessThan(WAIT_BOUND_MS);
  });

  it('refuses a buffer too small for its workers', () => {
    expect(() => new PublishBoard(4, new SharedArrayBuffer(8))).toThrow(RangeError);
  });
});

function round(n: number, msgsPerSec: number, warmup = false): RoundOutcome {
  return {
    round: n,
    warmup,
    startedNs: 0n,
    completedNs: 1n,
    durationMs: (1000 / msgsPerSec) * 40,
    published: 40,
    errors: 0,
    unsettled: 0,
    cut: false,
    expected: 40,
    received: 40,
    msgsPerSec,
    mbPerSec: (msgsPerSec * 256) / 1e6,
  };
}

describe('publishThroughputResult', () => {
  const workload = resolvePublishWorkload({ threads: 2, messagesPerThread: 20, rounds: 3 });
  const histogram = createLatencyHistogram();
  for (let us = 1; us <= 100; us += 1) recordLatencyNs(histogram, BigInt(us) * 1000n);
  const outcome: PublishThroughputOutcome = {
    workload,
    rounds: [round(1, 1000, true), round(2, 30_000), round(3, 10_000), round(4, 20_000)],
    report: { workers: [], histogram, errorSamples: [] },
  };

  it('reports the median measured round (warm-up left out), every round as a sample, and the latency percentiles', () => {
    const result = publishThroughputResult(outcome);
    expect(result.name).toBe('publish_throughput');
    expect(result.category).toBe('throughput');
    expect(result.parameters).toEqual({
      threads: 2,
      messages_per_thread: 20,
      message_size_bytes: 256,
      publish_mode: 'plain',
      rounds: 3,
      worker_threads: 2,
    });
    expect(result.metrics.throughput_msgs_per_sec).toEqual({ value: 20_000, unit: 'msg/s', direction: 'higher' });
    expect(result.metrics.throughput_mb_per_sec).toEqual({ value: 5.12, unit: 'MB/s', direction: 'higher' });
    expect(result.samples?.throughput_msgs_per_sec).toEqual([30_000, 10_000, 20_000]);
    expect(result.metrics.publish_latency_p50_ms).toEqual({ value: 0.05, unit: 'ms', direction: 'lower' });
    expect(result.metrics.publish_latency_p99_ms?.value).toBe(0.099);
    expect(result.metrics.publish_latency_max_ms?.value).toBe(0.1);
    expect(result.metrics.errors).toEqual({ value: 0, unit: 'count', direction: 'lower' });
    expect(result.metrics.messages_total).toEqual({ value: 120, unit: 'count', direction: 'none' });
    expect(decodeHistogram(result.histograms!.publish_latency!).totalCount).toBe(100);
    expect(result.notes?.join('\n')).toMatch(/including the wait for the channel's 'drain'/);
  });

  it('says what the latency means in confirm mode', () => {
    const confirm = publishThroughputResult({
      ...outcome,
      workload: resolvePublishWorkload({ threads: 2, messagesPerThread: 20, rounds: 3, mode: 'confirm' }),
    });
    expect(confirm.notes?.join('\n')).toMatch(/from publish\(\) to the broker's confirm/);
  });

  it('counts errors of every round and every worker that gave up', () => {
    const failing: PublishThroughputOutcome = {
      ...outcome,
      rounds: [
        { ...round(1, 1000, true), errors: 2 },
        { ...round(2, 10_000), errors: 1 },
      ],
      report: {
        workers: [
          {
            worker: 0,
            rounds: [],
            histogram: { encoded: '', unit: 'us', count: 0 },
            errorSamples: [],
            unsettled: [],
            fatal: 'connection closed',
          },
        ],
        histogram,
        errorSamples: [],
      },
    };
    expect(publishThroughputResult(failing).metrics.errors?.value).toBe(4);
  });

  it('gives no rate when no measured round had every publish settle, and says why; the finding names the publishes and the client', () => {
    const confirm = resolvePublishWorkload({ threads: 7, messagesPerThread: 20, rounds: 3, mode: 'confirm', roundBoundMs: 20_000 });
    const unsettled = [1, 2, 3, 4, 5, 6, 7].map((publisher) => ({ round: 1, warmup: true, publisher, publish: publisher + 10 }));
    const stopped: PublishThroughputOutcome = {
      workload: confirm,
      rounds: [{ ...round(1, 1000, true), published: 70, unsettled: 7 }],
      report: {
        workers: [{ worker: 0, rounds: [], histogram: { encoded: '', unit: 'us', count: 0 }, errorSamples: [], unsettled }],
        histogram: createLatencyHistogram(),
        errorSamples: [],
      },
    };
    const result = publishThroughputResult(stopped);
    expect(result.metrics.throughput_msgs_per_sec?.value).toBeNull();
    expect(result.metrics.throughput_mb_per_sec?.value).toBeNull();
    expect(result.samples?.throughput_msgs_per_sec).toEqual([]);
    expect(result.notes).toContain(
      '7 publish(es) never settled within the publish bound of 10000 ms in round 1 (warm-up): each stopped its publisher, and the measurement stopped after that round; no measured round had every publish settle, so there is no rate',
    );
    expect(result.details?.unsettled_publishes).toHaveLength(7);
    const finding = unsettledPublishFinding([stopped], {
      library: 'some-lib',
      version: '1.2.3',
      settings: { confirms: 'each awaited (see its issue #9)' },
    });
    expect(finding).toEqual({
      kind: 'publish_hung',
      text: '7 confirm(s) never settled within the publish bound of 10000 ms: each stopped its publisher there (an application awaiting it would still be waiting), and the measurement after that round',
      count: 7,
      evidence: [
        'round 1 (warm-up): publisher 1 at its publish 11 of 20, publisher 2 at its publish 12 of 20, publisher 3 at its publish 13 of 20, publisher 4 at its publish 14 of 20, publisher 5 at its publish 15 of 20; and 2 more',
        'some-lib 1.2.3; its confirms: each awaited (see its issue #9)',
      ],
    });
    // Plain mode: a publish never handed over; a client without words on its confirms is its library and version.
    const plain = { ...stopped, workload: { ...confirm, mode: 'plain' as const } };
    expect(unsettledPublishFinding([plain], { library: 'other', version: '2.0.0', settings: {} })).toMatchObject({
      text: expect.stringMatching(/^7 publish\(es\) never handed over within the publish bound of 10000 ms: /),
      evidence: [expect.any(String), 'other 2.0.0'],
    });
    expect(unsettledPublishFinding([outcome], { library: 'other', version: '2.0.0', settings: {} })).toBeUndefined();
  });

  it('refuses an outcome without a measured round', () => {
    expect(() => publishThroughputResult({ ...outcome, rounds: [round(1, 1000, true)] })).toThrow(
      'publish_throughput needs at least one measured round',
    );
  });
});

describe('harnessOverheadResult', () => {
  it('takes the median of the paired ratios and records the 90% target as met', () => {
    const result = harnessOverheadResult({
      messages: 30_000,
      messageSizeBytes: 256,
      errors: 0,
      pairs: [
        { first: 'harness', harnessMsgsPerSec: 20_000, bareMsgsPerSec: 10_000 },
        { first: 'bare', harnessMsgsPerSec: 47_500, bareMsgsPerSec: 50_000 },
        { first: 'harness', harnessMsgsPerSec: 40_000, bareMsgsPerSec: 50_000 },
      ],
    });
    expect(result.name).toBe('harness_overhead');
    expect(result.samples?.ratio_percent).toEqual([200, 95, 80]);
    expect(result.metrics.ratio_percent).toEqual({ value: 95, unit: '%', direction: 'higher' });
    expect(result.metrics.harness_msgs_per_sec?.value).toBe(40_000);
    expect(result.metrics.bare_msgs_per_sec?.value).toBe(50_000);
    // [80%, 200%] straddles 90%: three pairs cannot call it met.
    expect(result.targets).toEqual([
      expect.objectContaining({ metric: 'ratio_percent', comparator: '>', threshold: 90, unit: '%', met: null, verdict: 'inconclusive' }),
    ]);
  });

  it('records a missed target without failing: every pair beyond it', () => {
    const result = harnessOverheadResult({
      messages: 1,
      messageSizeBytes: 256,
      errors: 0,
      pairs: [80, 82, 78].map((harnessMsgsPerSec, index) => ({
        first: index % 2 === 0 ? ('harness' as const) : ('bare' as const),
        harnessMsgsPerSec,
        bareMsgsPerSec: 100,
      })),
    });
    expect(result.metrics.ratio_percent?.value).toBe(80);
    expect(result.targets?.[0]).toMatchObject({ met: false, verdict: 'missed', interval: { low: 78, high: 82, n: 3 } });
  });

  it('never calls one pair below the target a miss: noise alone cannot make one', () => {
    const result = harnessOverheadResult({
      messages: 1,
      messageSizeBytes: 256,
      errors: 0,
      pairs: [{ first: 'harness', harnessMsgsPerSec: 80, bareMsgsPerSec: 100 }],
    });
    expect(result.targets?.[0]).toMatchObject({ met: null, verdict: 'inconclusive' });
    expect(result.targets?.[0]?.reason).toMatch(/^inconclusive: 80% \(one measurement\); beyond the target in its one measurement/);
  });
});
