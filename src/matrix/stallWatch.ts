/**
 * Inside a fault-matrix thread while a fault stalls the client's writes (the broker stops
 * reading): the library's own back-pressure signal, where it has one (`Publisher.writesHeld`,
 * polled as the thread publishes: each time it turns on while the stall holds, from the injection
 * to the removal, is an episode, and the first is the thread noticing the fault; one that was on
 * before, under the ordinary load, counts only once it turns on again), and the memory the library holds meanwhile,
 * sampled every 250 ms: this worker's V8 heap and its external memory (the Buffers queued in the
 * library and in its socket live there), the process's RSS (a client program's own, read from
 * /proc, where the library runs in one), the publishes awaiting their confirm,
 * the signal's state. What tells a signal already on from one never given, and both from a poll
 * that never ran while the stall held: the signal at the first poll that saw the injection and at
 * the last before the removal, and the longest gap between two polls while the stall held.
 */
import type { Publisher } from '../client/api';
import { nowNs } from '../measure/clock';
import { MatrixControl, MatrixInt, type MatrixBoard } from './board';
import type { StallReport, StallSample } from './report';
import type { ThreadEvents } from './threadEvents';

const SAMPLE_EVERY_NS = 250_000_000n;
/** At most this many samples (over two minutes at 4 a second). */
const MAX_SAMPLES = 600;

export class StallWatch {
  private readonly samples: StallSample[] = [];
  private lastSampleNs = 0n;
  private held = false;
  private episodes = 0;
  private heldAtInjection: boolean | null = null;
  private heldAtRemoval: boolean | null = null;
  private lastTickNs = 0n;
  /** Polls before the injection (the ordinary load), and those with the signal on. */
  private pollsBefore = 0;
  private heldPollsBefore = 0;
  private longestStallGapNs = 0n;

  constructor(
    private readonly board: MatrixBoard,
    private readonly me: number,
    private readonly events: ThreadEvents,
    private readonly publisher: Publisher,
  ) {}

  /** Called as the thread publishes: the signal polled, a sample taken when one is due. */
  tick(): void {
    const atNs = nowNs();
    const held = this.publisher.writesHeld?.() ?? false;
    const injected = this.board.flag(MatrixControl.INJECTED) !== 0;
    // After the removal the window of 50 is back and the signal comes and goes with the ordinary
    // load again (rascal's pool 'busy' on at over 90% of the polls before the injection): turning on
    // then is not noticing the stall.
    const stallHolds = injected && this.board.flag(MatrixControl.REMOVED) === 0;
    if (held && !this.held && stallHolds) {
      this.episodes += 1;
      this.events.note({ source: 'signal', kind: 'backpressure', message: 'the library says its writes are held', atNs: String(atNs) });
    }
    if (!injected) {
      this.pollsBefore += 1;
      if (held) this.heldPollsBefore += 1;
    } else if (stallHolds) this.duringStall(atNs, held);
    this.held = held;
    this.lastTickNs = atNs;
    if (atNs - this.lastSampleNs >= SAMPLE_EVERY_NS && this.samples.length < MAX_SAMPLES) this.sample(atNs, held);
  }

  /** A poll while the stall holds: the first one is the signal's state at the injection, the last one at the removal. */
  private duringStall(atNs: bigint, held: boolean): void {
    if (this.heldAtInjection === null) this.heldAtInjection = held;
    else if (atNs - this.lastTickNs > this.longestStallGapNs) this.longestStallGapNs = atNs - this.lastTickNs;
    this.heldAtRemoval = held;
  }

  private sample(atNs: bigint, held: boolean): void {
    this.lastSampleNs = atNs;
    const memory = process.memoryUsage();
    this.samples.push({
      atNs: String(atNs),
      heapBytes: memory.heapUsed,
      externalBytes: memory.external,
      rssBytes: memory.rss,
      programRssBytes: this.publisher.libraryProcessRssBytes?.() ?? null,
      outstanding: this.board.int(this.me, MatrixInt.OUTSTANDING),
      held,
    });
  }

  report(): StallReport {
    return {
      signal: this.publisher.writesHeld !== undefined,
      episodes: this.episodes,
      heldAtInjection: this.heldAtInjection,
      pollsBeforeInjection: this.pollsBefore,
      heldPollsBeforeInjection: this.heldPollsBefore,
      heldAtRemoval: this.heldAtRemoval,
      longestPollGapMs: this.heldAtInjection === null ? null : Number(this.longestStallGapNs) / 1e6,
      // Only a client in another process publishes in runs (Publisher.publishRun).
      outOfProcess: this.publisher.publishRun !== undefined,
      samples: this.samples,
    };
  }
}
