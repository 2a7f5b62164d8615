/**
 * Reads the depth of a sustained consume session's queue from the broker every few ms, over the
 * harness's admin connection: each sample is kept (a window's figures say whether the queue ran
 * dry inside it) and written to the board, where the producers pace themselves by it.
 *
 * Lifecycle: `startDepthSampler` -> running (one passive declare per tick, then a pause of
 * `intervalMs`) -> `stop()` (safe twice; waits for the tick under way). A failed read ends the
 * sampling and is kept in `error`: producers then run on their estimate alone and stop at the high
 * mark, and windows without samples are reported as unchecked, never as clean.
 */
import type { QueueAdmin } from '../broker/queueAdmin';
import { describeError } from '../errors';
import { nowNs, sleep } from '../measure/clock';
import { redactText } from '../redact';
import type { ConsumeBoard } from './consumeBoard';
import type { DepthSample } from './consumeRates';

export interface DepthSampler {
  /** Every sample so far, in time order. */
  readonly samples: readonly DepthSample[];
  /** Why sampling stopped early, if it did. */
  readonly error: string | undefined;
  stop(): Promise<void>;
}

export function startDepthSampler(admin: QueueAdmin, queue: string, board: ConsumeBoard, intervalMs: number): DepthSampler {
  const samples: DepthSample[] = [];
  let error: string | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      // Read before asking: a message published after this may or may not be in the answer, so the estimate counts it.
      const publishedBefore = board.published();
      try {
        const { ready, consumers } = await admin.inspect(queue);
        samples.push({ atNs: nowNs(), ready, consumers });
        board.writeDepth(ready, publishedBefore);
      } catch (caught) {
        if (running) error = `queue depth sampling stopped: ${redactText(describeError(caught))}`;
        return;
      }
      await sleep(intervalMs);
    }
  })();
  let stopping: Promise<void> | undefined;
  return {
    samples,
    get error() {
      return error;
    },
    stop() {
      running = false;
      stopping ??= loop;
      return stopping;
    },
  };
}
