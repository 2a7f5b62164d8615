/**
 * Inside a fault-matrix thread while a fault stalls the client's writes (the broker stops
 * reading): the library's own back-pressure signal, where it has one (`Publisher.writesHeld`,
 * polled as the thread publishes: each time it turns on after the injection is an episode, and
 * the first is the thread noticing the fault; one that was on before, under the ordinary load,
 * counts only once it turns on again), and the memory the library holds meanwhile,
 * sampled every 250 ms: this worker's V8 heap and its external memory (the Buffers queued in the
 * library and in its socket live there), the process's RSS, the publishes awaiting their confirm.
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
    if (held && !this.held && this.board.flag(MatrixControl.INJECTED) !== 0) {
      this.episodes += 1;
      this.events.note({ source: 'signal', kind: 'backpressure', message: 'the library says its writes are held', atNs: String(atNs) });
    }
    this.held = held;
    if (atNs - this.lastSampleNs >= SAMPLE_EVERY_NS && this.samples.length < MAX_SAMPLES) this.sample(atNs);
  }

  private sample(atNs: bigint): void {
    this.lastSampleNs = atNs;
    const memory = process.memoryUsage();
    this.samples.push({
      atNs: String(atNs),
      heapBytes: memory.heapUsed,
      externalBytes: memory.external,
      rssBytes: memory.rss,
      outstanding: this.board.int(this.me, MatrixInt.OUTSTANDING),
    });
  }

  report(): StallReport {
    return {
      signal: this.publisher.writesHeld !== undefined,
      episodes: this.episodes,
      // Only a client in another process publishes in runs (Publisher.publishRun).
      outOfProcess: this.publisher.publishRun !== undefined,
      samples: this.samples,
    };
  }
}
