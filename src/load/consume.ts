/**
 * The consumers of a load run, over the client adapter interface: each delivery is recorded with
 * the intended send time its first bytes carry (the producer's clock: the same
 * `process.hrtime.bigint()` when producer and consumer share a machine) and settled as the
 * workload's ack mode says.
 */
import type { ClientConnection, Consumer, Delivery } from '../client/api';
import { nowNs } from '../measure/clock';
import type { LoadRecorder } from './recorder';
import { HEADER_BYTES, type AckMode } from './workload';

/** Starts consuming `queue` on `connection`, recording each delivery (its intended time read from its first bytes). */
export function startConsumer(
  connection: ClientConnection,
  queue: string,
  options: { readonly ack: AckMode; readonly prefetch: number },
  recorder: LoadRecorder,
): Promise<Consumer> {
  const settle = settlerOf(options.ack, recorder);
  return connection.consume(queue, { ack: options.ack.kind === 'auto' ? 'auto' : 'manual', prefetch: options.prefetch }, (delivery) => {
    const atNs = nowNs();
    if (delivery.body.length >= HEADER_BYTES) {
      recorder.consumed(Number(delivery.body.readBigUInt64BE(8)), delivery.body.readBigUInt64BE(0), atNs);
    }
    settle(delivery);
  });
}

/**
 * How a consumer settles each delivery under `mode` (PerfTest's `-a`, `--multi-ack-every`,
 * `--nack`): one ack each; an ack of everything so far on every N-th delivery; or a nack (requeued:
 * delivered again, counted with the redeliveries) of a share of the deliveries, spread evenly, and
 * an ack of the rest. The adapter says which of these its library has (run.ts refuses the others).
 */
export function settlerOf(mode: AckMode, recorder: LoadRecorder): (delivery: Delivery) => void {
  if (mode.kind === 'multiple') {
    let unacked = 0;
    return (delivery) => {
      unacked += 1;
      if (unacked < mode.every) return;
      unacked = 0;
      delivery.ackUpTo!();
    };
  }
  if (mode.kind === 'nack') {
    let seen = 0;
    return (delivery) => {
      seen += 1;
      // Evenly spread: the n-th delivery is nacked when floor(n * fraction) steps up.
      if (Math.floor(seen * mode.fraction) > Math.floor((seen - 1) * mode.fraction)) {
        recorder.nackedByConsumer();
        delivery.nack!(true);
      } else delivery.ack();
    };
  }
  return (delivery) => delivery.ack();
}
