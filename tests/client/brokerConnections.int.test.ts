import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { getConfig } from '../../src/config';
import { listBrokerConnections, waitForNoConnections } from '../../src/faults/brokerConnections';

describe('broker connection listing (leak check)', () => {
  it('sees a named connection while it is open and not after it closed', async () => {
    const url = getConfig().amqpUrl;
    const name = `amqp-bench-test-${randomUUID()}`;
    const connection = await amqp.connect(url, { clientProperties: { connection_name: name } });
    try {
      let seen = false;
      for (let i = 0; i < 20 && !seen; i += 1) {
        seen = (await listBrokerConnections(url)).names.includes(name);
        if (!seen) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen).toBe(true);
      const stillOpen = await waitForNoConnections(url, name, 300);
      expect(stillOpen.leaked).toEqual([name]);
    } finally {
      await connection.close();
    }
    expect((await waitForNoConnections(url, name, 10_000)).leaked).toEqual([]);
  }, 40_000);
});
