/** How a load consumer settles each delivery under an ack mode (pure: recorded deliveries). */
import type { Delivery } from '../../src/client/api';
import { LoadRecorder } from '../../src/load/recorder';
import { settlerOf } from '../../src/load/consume';

function deliveries(count: number, calls: string[]): Delivery[] {
  return Array.from({ length: count }, (_, index) => ({
    body: Buffer.alloc(0),
    redelivered: false,
    ack: () => calls.push(`ack ${index}`),
    ackUpTo: () => calls.push(`ackUpTo ${index}`),
    nack: (requeue: boolean) => calls.push(`nack ${index} ${requeue}`),
  }));
}

describe('settlerOf', () => {
  it('acks each delivery in manual mode', () => {
    const calls: string[] = [];
    const settle = settlerOf({ kind: 'manual' }, new LoadRecorder(0n, 0n));
    for (const delivery of deliveries(3, calls)) settle(delivery);
    expect(calls).toEqual(['ack 0', 'ack 1', 'ack 2']);
  });

  it('acks everything so far on every N-th delivery with multiple:N', () => {
    const calls: string[] = [];
    const settle = settlerOf({ kind: 'multiple', every: 3 }, new LoadRecorder(0n, 0n));
    for (const delivery of deliveries(7, calls)) settle(delivery);
    expect(calls).toEqual(['ackUpTo 2', 'ackUpTo 5']);
  });

  it('nacks (requeued) the given share of deliveries, evenly spread, and acks the rest', () => {
    const calls: string[] = [];
    const recorder = new LoadRecorder(0n, 0n);
    const settle = settlerOf({ kind: 'nack', fraction: 0.25 }, recorder);
    for (const delivery of deliveries(8, calls)) settle(delivery);
    expect(calls).toEqual(['ack 0', 'ack 1', 'ack 2', 'nack 3 true', 'ack 4', 'ack 5', 'ack 6', 'nack 7 true']);
    expect(recorder.totals.nackedByConsumer).toBe(2);
  });
});
