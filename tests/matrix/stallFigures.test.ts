/**
 * A stalled thread's figures from known samples and publishes (pure): memory growth as the
 * least-squares slope over the samples taken while the stall held (those before and after left
 * out), the offered rate, the outstanding publishes at the removal, the drain (the removal to the
 * last publish made during the stall settling), and nothing for a thread with no stall or a
 * library in another process.
 */
import { PublishPhase, PublishState, type MatrixThreadReport, type StallReport, type StallSample } from '../../src/matrix/report';
import { slopeMbPerS, stallDetail } from '../../src/matrix/stallFigures';

const MS = 1_000_000n;
const T0 = 1_000_000n * MS;
const at = (ms: number) => T0 + BigInt(ms) * MS;

const sample = (ms: number, heapMb: number, externalMb: number, rssMb: number, outstanding: number, held = false): StallSample => ({
  atNs: String(at(ms)),
  heapBytes: heapMb * 1e6,
  externalBytes: externalMb * 1e6,
  rssBytes: rssMb * 1e6,
  programRssBytes: null,
  outstanding,
  held,
});

/** A thread's stall report: its signal polled every few ms while the stall held, unless said otherwise. */
const watched = (fields: Partial<StallReport> & Pick<StallReport, 'signal' | 'episodes' | 'outOfProcess'>): StallReport => ({
  samples: SAMPLES,
  heldAtInjection: false,
  pollsBeforeInjection: 40,
  heldPollsBeforeInjection: 10,
  heldAtRemoval: true,
  longestPollGapMs: 12.5,
  ...fields,
});

/** Before the stall (0–999 ms): 2 publishes settled; during it (1000–3000 ms): 4, settled at 3100–3400 ms; the removal at 3000 ms. */
function report(stall: MatrixThreadReport['stall'], lastSettledMs: number | null = 3400): MatrixThreadReport {
  const phases = [PublishPhase.BEFORE, PublishPhase.BEFORE, ...Array.from({ length: 4 }, () => PublishPhase.DURING_FAULT)];
  const settled = [100, 200, 3100, 3200, 3300, lastSettledMs];
  return {
    threadIndex: 0,
    state: Uint8Array.from(settled, (ms) => (ms === null ? PublishState.PENDING : PublishState.CONFIRMED)),
    settledOnlyByClose: 0,
    phase: Uint8Array.from(phases),
    publishedAtNs: BigInt64Array.from([0, 50, 1000, 1500, 2000, 2500].map((ms) => at(ms))),
    settledAtNs: BigInt64Array.from(settled, (ms) => (ms === null ? 0n : at(ms))),
    deliveries: new Uint16Array(6),
    deliveredAtNs: new BigInt64Array(6),
    lastDeliveredAtNs: new BigInt64Array(6),
    ports: [],
    rejections: [],
    events: [],
    unhandled: [],
    closeMs: 1,
    ...(stall ? { stall } : {}),
  };
}

// Heap +1 MB/s, external +3 MB/s, RSS +5 MB/s during the stall; a jump before and after it that must not count.
const SAMPLES = [
  sample(500, 50, 0, 400, 0),
  ...[1000, 1500, 2000, 2500, 3000].map((ms, index) => sample(ms, 10 + index * 0.5, 20 + index * 1.5, 100 + index * 2.5, 10 * index)),
  sample(3500, 0, 0, 10, 0),
];

describe('a stalled thread’s figures', () => {
  it('the slope in MB/s over time, and none from fewer than two samples', () => {
    expect(slopeMbPerS(SAMPLES.slice(1, 6), (each) => each.heapBytes)).toBeCloseTo(1, 6);
    expect(slopeMbPerS(SAMPLES.slice(1, 2), (each) => each.heapBytes)).toBeNull();
  });

  it('growth while it held, the offered rate, outstanding at the removal, the drain', () => {
    const detail = stallDetail(report(watched({ signal: true, episodes: 2, outOfProcess: false })), at(1000), at(3000), 10_000);
    expect(detail).toMatchObject({
      stall_s: 2,
      offered_msg_per_s: 2,
      offered_mb_per_s: 0.02,
      signal: 'given',
      signal_episodes: 2,
      memory_measured: true,
      outstanding_at_removal: 40,
      outstanding_max: 40,
      published_during_stall: 4,
      unsettled_from_stall: 0,
      drain_ms: 400,
      samples: 5,
    });
    expect(detail!.worker_memory_mb_per_s).toBeCloseTo(4, 3);
    expect(detail!.worker_heap_mb_per_s).toBeCloseTo(1, 3);
    expect(detail!.rss_mb_per_s).toBeCloseTo(5, 3);
  });

  it('a client program: its own process’s resident set as it grew, none when a sample could not read it', () => {
    // The program's RSS +7 MB/s while the stall held (200 MB at 1000 ms, 214 MB at 3000 ms).
    const program = SAMPLES.map((each, index) => ({ ...each, programRssBytes: (200 + (index - 1) * 3.5) * 1e6 }));
    const detail = stallDetail(
      report(watched({ signal: false, episodes: 0, outOfProcess: true, samples: program })),
      at(1000),
      at(3000),
      100,
    );
    expect(detail).toMatchObject({ memory_measured: false, worker_memory_mb_per_s: null });
    expect(detail!.program_rss_mb_per_s).toBeCloseTo(7, 3);
    const unread = program.map((each, index) => (index === 3 ? { ...each, programRssBytes: null } : each));
    expect(
      stallDetail(report(watched({ signal: false, episodes: 0, outOfProcess: true, samples: unread })), at(1000), at(3000), 100)
        ?.program_rss_mb_per_s,
    ).toBeNull();
    // In process, the worker's figures say it: no program figure.
    expect(
      stallDetail(report(watched({ signal: true, episodes: 1, outOfProcess: false })), at(1000), at(3000), 100)?.program_rss_mb_per_s,
    ).toBeNull();
  });

  it('a library without a signal, one that never used its own, one in another process, a publish never settled', () => {
    const none = stallDetail(report(watched({ signal: false, episodes: 0, outOfProcess: true }), null), at(1000), at(3000), 100);
    expect(none).toMatchObject({ signal: 'none', memory_measured: false, worker_memory_mb_per_s: null, rss_mb_per_s: null });
    expect(none).toMatchObject({ unsettled_from_stall: 1, drain_ms: null });
    expect(none).toMatchObject({
      signal_at_injection: null,
      signal_at_removal: null,
      signal_on_share: null,
      signal_on_share_before: null,
      polls_before_injection: 40,
    });
    expect(
      stallDetail(report(watched({ signal: true, episodes: 0, outOfProcess: false, heldAtRemoval: false })), at(1000), at(3000), 100)
        ?.signal,
    ).toBe('not_given');
    expect(stallDetail(report(undefined), at(1000), at(3000), 100)).toBeUndefined();
  });

  // On from before the injection to the removal: it never turned on because it never turned off.
  // On at both ends with no episode between means on at every poll (an off poll then on again is an episode).
  it('a signal on already under the ordinary load and through the stall, apart from one that stayed off, with its states', () => {
    const onSamples = SAMPLES.map((each, index) => ({ ...each, held: index !== 0 }));
    const onAlready = stallDetail(
      report(watched({ signal: true, episodes: 0, outOfProcess: false, samples: onSamples, heldAtInjection: true })),
      at(1000),
      at(3000),
      100,
    );
    expect(onAlready).toMatchObject({
      signal: 'on_already',
      signal_at_injection: true,
      signal_at_removal: true,
      signal_on_share: 1,
      signal_on_share_before: 0.25,
      polls_before_injection: 40,
      longest_poll_gap_ms: 12.5,
    });
    const partly = SAMPLES.map((each, index) => ({ ...each, held: index >= 4 }));
    const given = stallDetail(
      report(watched({ signal: true, episodes: 1, outOfProcess: false, samples: partly })),
      at(1000),
      at(3000),
      100,
    );
    expect(given).toMatchObject({ signal: 'given', signal_at_injection: false, signal_at_removal: true, signal_on_share: 0.4 });
    const offAtRemoval = watched({ signal: true, episodes: 0, outOfProcess: false, heldAtInjection: true, heldAtRemoval: false });
    expect(stallDetail(report(offAtRemoval), at(1000), at(3000), 100)?.signal).toBe('not_given');
    const neverPolled = watched({ signal: true, episodes: 0, outOfProcess: false, heldAtInjection: null, heldAtRemoval: null });
    expect(stallDetail(report({ ...neverPolled, longestPollGapMs: null }), at(1000), at(3000), 100)).toMatchObject({
      signal: 'not_given',
      longest_poll_gap_ms: null,
    });
  });
});
