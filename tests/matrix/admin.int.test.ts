/**
 * The cell's admin side reads every message left in a queue, whatever their number: thousands (a
 * slow consumer's backlog) through its draining consumer, copies counted, probes and foreign
 * bodies left out, and a queue that is gone read as empty without failing.
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { getConfig } from '../../src/config';
import { CellAdmin } from '../../src/matrix/admin';
import { PROBE_ROUND } from '../../src/matrix/report';
import { encodeMessage } from '../../src/suite-kit/message';

const message = (round: number, seq: number) => encodeMessage({ round, seq, sentNs: 0n, scheduledNs: 0n, paced: false }, 64);

describe('CellAdmin.drain (real broker)', () => {
  it('reads a backlog of 5000 own messages (one twice) and leaves out probes and foreign bodies', async () => {
    const prefix = `amqp-bench.test.drain.${randomUUID()}`;
    const queue = `${prefix}.0`;
    const admin = await CellAdmin.open(getConfig().amqpUrl);
    const connection = await amqp.connect(getConfig().amqpUrl);
    try {
      await admin.declare(prefix, [queue]);
      const channel = await connection.createConfirmChannel();
      for (let seq = 0; seq < 5000; seq += 1) channel.publish(prefix, queue, message(0, seq));
      channel.publish(prefix, queue, message(0, 7));
      for (let seq = 0; seq < 20; seq += 1) channel.publish(prefix, queue, message(PROBE_ROUND, seq));
      channel.publish(prefix, queue, Buffer.from('not ours'));
      await channel.waitForConfirms();
      const left = await admin.drain(queue);
      expect(left.size).toBe(5000);
      expect(left.get(7)).toBe(2);
      expect(left.get(4999)).toBe(1);
      expect([...left.values()].reduce((sum, copies) => sum + copies, 0)).toBe(5001);
      await expect(admin.drain(queue)).resolves.toEqual(new Map());
    } finally {
      await connection.close().catch(() => undefined);
      await admin.dispose(prefix, [queue]);
    }
  }, 60_000);

  it('reads a queue that is gone as empty', async () => {
    const admin = await CellAdmin.open(getConfig().amqpUrl);
    try {
      await expect(admin.drain(`amqp-bench.test.drain.absent.${randomUUID()}`)).resolves.toEqual(new Map());
    } finally {
      await admin.dispose('amqp-bench.test.drain.none', []);
    }
  }, 30_000);
});
