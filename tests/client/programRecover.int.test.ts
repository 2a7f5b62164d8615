/**
 * `recover` (client protocol 2) in the three client programs, against the real broker: the
 * connection back as `ensure` brings it, then a probe published on the harness's plain publisher
 * to the consumer's own queue and taken from that consumer's delivery, every time read in the
 * program (the span the recovery suites record for a program, and its bare recovery program times).
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import type { ClientName } from '../../src/client/registry';
import { availableClients, connectClient } from '../../src/client/registry';
import { ProgramConnection } from '../../src/client/process/connection';
import { getConfig } from '../../src/config';
import { nowNs } from '../../src/measure/clock';

const PROGRAMS: readonly ClientName[] = ['kombu', 'pika', 'amqp091-go'];
const installed = PROGRAMS.filter((name) => availableClients().includes(name));

async function waitUntil(predicate: () => boolean, boundMs: number): Promise<boolean> {
  const until = performance.now() + boundMs;
  while (performance.now() < until && !predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
  return predicate();
}

if (installed.length === 0) it.skip('no client program is installed here (bash scripts/setup-clients.sh installs them)', () => undefined);
else
  describe.each(installed.map((name) => [name]))('%s makes and times the recovery round trip itself', (name) => {
    it('while up (no attempt), and after its socket was cut (attempts, its own times in order, the probe through its consumer)', async () => {
      const url = getConfig().amqpUrl;
      const queue = `amqp-bench.test.recover.${randomUUID()}`;
      const admin = await amqp.connect(url);
      const channel = await admin.createChannel();
      await channel.assertQueue(queue, { durable: false });
      const connection = await connectClient({ name, profile: 'normalised' }, { urls: [url] });
      try {
        expect(connection).toBeInstanceOf(ProgramConnection);
        const program = connection as ProgramConnection;
        expect(program.recoversInProgram).toBe(true);
        const probes: string[] = [];
        await program.consume(queue, { ack: 'auto' }, (delivery) => probes.push(delivery.body.toString()));
        await program.publisher({ confirms: false });

        const up = await program.recoverWithProbe(queue, 5000, 5000);
        expect(up.attempts).toBe(0);
        expect(up.recoveredNs).toBeGreaterThan(up.recoveryStartedNs);

        const faults: string[] = [];
        program.onFault((fault) => faults.push(fault.kind));
        program.destroy('test');
        expect(await waitUntil(() => program.state === 'down', 5000)).toBe(true);
        const askedNs = nowNs();
        const back = await program.recoverWithProbe(queue, 10_000, 5000);
        const answeredNs = nowNs();
        expect(back.attempts).toBeGreaterThanOrEqual(1);
        expect(back.recoveryStartedNs).toBeGreaterThanOrEqual(askedNs);
        expect(back.connectedNs).toBeGreaterThan(back.recoveryStartedNs);
        expect(back.recoveredNs).toBeGreaterThan(back.connectedNs);
        expect(back.recoveredNs).toBeLessThanOrEqual(answeredNs);
        expect(program.state).toBe('up');
        expect(faults).toHaveLength(1);
        // Both probes came through the consumer (the program reports them as any delivery).
        expect(await waitUntil(() => probes.filter((body) => body.startsWith('probe-')).length === 2, 5000)).toBe(true);
      } finally {
        await connection.close();
        await channel.deleteQueue(queue);
        await admin.close();
      }
    }, 60_000);

    it('with a consumer that only counts (bodies: false): the probe still recognised in the program, every delivery counted, the last ones too', async () => {
      const url = getConfig().amqpUrl;
      const queue = `amqp-bench.test.recover-counts.${randomUUID()}`;
      const admin = await amqp.connect(url);
      const channel = await admin.createChannel();
      await channel.assertQueue(queue, { durable: false });
      const connection = await connectClient({ name, profile: 'normalised' }, { urls: [url] });
      try {
        const program = connection as ProgramConnection;
        const counted: Buffer[] = [];
        await program.consume(queue, { ack: 'auto', bodies: false }, (delivery) => counted.push(delivery.body));
        await program.publisher({ confirms: false });

        const up = await program.recoverWithProbe(queue, 5000, 5000);
        expect(up.recoveredNs).toBeGreaterThan(up.recoveryStartedNs);
        program.destroy('test');
        expect(await waitUntil(() => program.state === 'down', 5000)).toBe(true);
        const back = await program.recoverWithProbe(queue, 10_000, 5000);
        expect(back.attempts).toBeGreaterThanOrEqual(1);
        expect(back.recoveredNs).toBeGreaterThan(back.connectedNs);

        // Traffic after the recovery, one message every 2 ms: counted, the last ones told although nothing follows them.
        for (let index = 0; index < 50; index += 1) {
          channel.sendToQueue(queue, Buffer.from(`m${index}`));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        expect(await waitUntil(() => counted.length === 52, 5000)).toBe(true);
        expect(counted.every((body) => body.length === 0)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(counted).toHaveLength(52);
      } finally {
        await connection.close();
        await channel.deleteQueue(queue);
        await admin.close();
      }
    }, 60_000);
  });
