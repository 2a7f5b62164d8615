/**
 * While the broker blocks publishers (an alarm), does close() still return? Thread 0 opens a
 * second connection of the same client, publishes once on it (it is blocked from then on), then
 * closes it, bounded: a library that waits for the unblock in close() hangs an application's
 * shutdown for as long as the alarm lasts.
 */
import type { ClientConnection } from '../client/api';
import { bounded } from '../client/bounded';
import { connectClient } from '../client/registry';
import { describeError } from '../errors';
import { nowNs, sleep } from '../measure/clock';
import { redactText } from '../redact';
import type { MatrixThreadReport } from './report';
import type { MatrixTask } from './thread';

export async function checkCloseWhileBlocked(task: MatrixTask): Promise<NonNullable<MatrixThreadReport['closeCheck']>> {
  let second: ClientConnection | undefined;
  try {
    second = await connectClient(task.client, {
      urls: [task.url],
      connectionName: `${task.connectionName}.close-check`,
      startBoundMs: 5000,
    });
    const publisher = await second.publisher({ confirms: false });
    void publisher.publish(task.exchange, task.queue, Buffer.alloc(1024)).catch(() => undefined);
    await sleep(300);
    const startedNs = nowNs();
    const closed = await bounded(second.close(), task.closeBoundMs, '').then(
      () => true,
      () => false,
    );
    return {
      closeMs: closed ? Number(nowNs() - startedNs) / 1e6 : null,
      boundMs: task.closeBoundMs,
      hitAdapterBound: second.closeHitBound,
    };
  } catch (failure) {
    return { closeMs: null, boundMs: task.closeBoundMs, hitAdapterBound: false, error: redactText(describeError(failure)) };
  }
}
