/**
 * The adapter contract run on adapters from outside (tests/fixtures/adapters/, plain JavaScript
 * modules loaded as a user's are), against the real broker and the contract's own proxy: a good
 * one passes every check; each deliberately broken one fails the check of its defect, in words
 * that name it, and no other.
 */
import path from 'node:path';
import type { ClientConnection } from '../../src/client/api';
import { ContractSession, runContract, type CheckOutcome, type ContractCheck } from '../../src/client/contract';
import { needs } from '../../src/client/contract/types';
import { loadAdapterModule } from '../../src/client/external';
import { getConfig } from '../../src/config';

const FIXTURES = path.resolve(__dirname, '../fixtures/adapters');

async function contractOf(file: string): Promise<readonly CheckOutcome[]> {
  const module = path.join(FIXTURES, file);
  const adapter = loadAdapterModule(module);
  return (await runContract({ name: adapter.name, profile: 'defaults', module }, getConfig().amqpUrl)).outcomes;
}

const named = (outcomes: readonly CheckOutcome[], status: CheckOutcome['status']) =>
  outcomes.filter((outcome) => outcome.status === status).map((outcome) => outcome.name);

describe('check-adapter on adapters from outside (real broker, embedded proxy)', () => {
  it('a good adapter passes every check; only blocked / unblocked are not checked here', async () => {
    const outcomes = await contractOf('good.js');
    expect(named(outcomes, 'failed')).toEqual([]);
    expect(named(outcomes, 'skipped')).toEqual(['onSignal: blocked, unblocked']);
    expect(outcomes.find((outcome) => outcome.name === 'connect')!.words).toMatch(/^up in \d+ ms, its info agrees with the adapter's$/);
  }, 90_000);

  it.each([
    [
      'no-faults.js',
      'onFault',
      /^a TCP reset gave no fault within 5 s \(`state` says "down"\): the adapter does not report faults \(call the onFault listeners from the library's earliest error or close event\)$/,
    ],
    [
      'no-consumer-recovery.js',
      'consumer after recovery',
      /^after the connection was reset and came back, the consumer received nothing within 5 s \(the broker counts 0 consumer\(s\) on its queue\): the adapter does not re-establish consumers \(or its library does not\)$/,
    ],
    [
      'close-twice-throws.js',
      'close()',
      /^the second close\(\) threw "the connection is already closed": close\(\) must be safe to call twice$/,
    ],
  ])(
    '%s: fails %s, saying what is wrong, and nothing else',
    async (file, check, words) => {
      const outcomes = await contractOf(file);
      expect(named(outcomes, 'failed')).toEqual([check]);
      expect(outcomes.find((outcome) => outcome.name === check)!.words).toMatch(words);
      // The checks that build on it still ran: one defect, one failure.
      expect(named(outcomes, 'skipped')).toEqual(['onSignal: blocked, unblocked']);
    },
    90_000,
  );
});

describe('the contract session: bounds and cleanup (real broker, embedded proxy)', () => {
  let session: ContractSession;

  beforeAll(async () => {
    session = await ContractSession.open({ name: 'amqplib', profile: 'normalised' }, getConfig().amqpUrl);
  });
  afterAll(() => session.close());

  it('cuts a check off at its bound, says what it was doing, and stops it at its next wait', async () => {
    let stopped: unknown;
    const hanging: ContractCheck = {
      name: 'hangs',
      group: 'bounds',
      boundMs: 300,
      async run(context) {
        context.step('waiting for what never comes');
        try {
          await context.waitUntil(() => false, 5000);
        } catch (error) {
          stopped = error;
          throw error;
        }
        return 'never';
      },
    };
    const outcome = await session.run(hanging);
    expect(outcome).toMatchObject({ name: 'hangs', status: 'failed', words: 'bound of 300 ms passed while waiting for what never comes' });
    expect(outcome.elapsedMs).toBeLessThan(1000);
    // Its next poll (every 10 ms) finds it abandoned.
    const deadline = Date.now() + 1000;
    while (stopped === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBeDefined();

    const throwing: ContractCheck = {
      name: 'throws',
      group: 'bounds',
      boundMs: 1000,
      async run(context) {
        context.step('asking the adapter something');
        throw new Error('boom');
      },
    };
    expect(await session.run(throwing)).toMatchObject({ status: 'failed', words: 'threw while asking the adapter something: boom' });

    const building: ContractCheck = {
      name: 'builds on hangs',
      group: 'bounds',
      boundMs: 1000,
      async run(context) {
        needs(context, 'hangs');
        return 'ran';
      },
    };
    expect(await session.run(building)).toMatchObject({ status: 'skipped', words: 'not checked: it needs hangs, which failed' });
  }, 30_000);

  it("closes a group's client connections and deletes its queues when the group ends, whatever its checks did", async () => {
    let opened: ClientConnection | undefined;
    let queue = '';
    const opening: ContractCheck = {
      name: 'opens',
      group: 'first',
      boundMs: 15_000,
      async run(context) {
        opened = await context.connect('proxy');
        queue = await context.broker.declareQueue('amqp-bench.check-adapter.test');
        await opened.consume(queue, { ack: 'auto' }, () => undefined);
        throw new Error('failed with everything open');
      },
    };
    expect((await session.run(opening)).status).toBe('failed');
    expect(opened!.state).toBe('up');
    let queueAfter: unknown;
    const next: ContractCheck = {
      name: 'next group',
      group: 'second',
      boundMs: 5000,
      async run(context) {
        queueAfter = await context.broker.inspect(queue).catch((error: unknown) => error);
        return 'ran';
      },
    };
    expect((await session.run(next)).status).toBe('passed');
    expect(opened!.state).toBe('closed');
    expect(String(queueAfter)).toMatch(/404 \(NOT-FOUND\)/);
  }, 30_000);
});
