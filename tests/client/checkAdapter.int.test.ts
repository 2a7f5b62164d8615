/**
 * The adapter contract run on adapters from outside (tests/fixtures/adapters/, plain JavaScript
 * modules loaded as a user's are), against the real broker and the contract's own proxy: a good
 * one passes every check; each deliberately broken one fails the check of its defect, in words
 * that name it, and no other.
 */
import path from 'node:path';
import type { ClientConnection } from '../../src/client/api';
import { resolveClusterSettings } from '../../src/broker/nodes/settings';
import { CHECK_ADAPTER_NODE, startSoloNode, type SoloNode } from '../../src/broker/nodes/soloNode';
import { ContractSession, runContract, type AlarmNode, type CheckOutcome, type ContractCheck } from '../../src/client/contract';
import { blockedCheck } from '../../src/client/contract/signalChecks';
import { needs } from '../../src/client/contract/types';
import { loadClientModule } from '../../src/client/registry';
import { getConfig } from '../../src/config';

const FIXTURES = path.resolve(__dirname, '../fixtures/adapters');

async function contractOf(file: string): Promise<readonly CheckOutcome[]> {
  const module = path.join(FIXTURES, file);
  const adapter = loadClientModule(module);
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

describe('check-adapter --alarm-node: blocked / unblocked on a node of its own', () => {
  let solo: SoloNode | undefined;
  let alarmNode: AlarmNode;
  let closeActions: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    // check-adapter's own node: the fault matrix's tests may use theirs at the same time.
    solo = await startSoloNode(resolveClusterSettings(), () => undefined, CHECK_ADAPTER_NODE);
    const actions = solo.brokerActions({ exchanges: [], queues: [] });
    closeActions = () => actions.close();
    alarmNode = { url: solo.url, setMemoryAlarm: (raised) => actions.setMemoryAlarm(raised) };
  }, 120_000);
  afterAll(async () => {
    await closeActions().catch(() => undefined);
    await solo?.stop();
  }, 60_000);

  const blockedOf = async (file: string): Promise<CheckOutcome> => {
    const module = path.join(FIXTURES, file);
    const adapter = loadClientModule(module);
    const { outcomes } = await runContract(
      { name: adapter.name, profile: 'defaults', module },
      getConfig().amqpUrl,
      undefined,
      [blockedCheck],
      alarmNode,
    );
    return outcomes[0]!;
  };

  it('passes an adapter that tells both, and names the defect of one that tells neither', async () => {
    expect(await blockedOf('good.js')).toMatchObject({ status: 'passed', words: expect.stringMatching(/^told: .+; then .+/) });
    expect(await blockedOf('no-blocked-signal.js')).toMatchObject({
      status: 'failed',
      words: expect.stringMatching(
        /^a publish during a resource alarm \(connection\.blocked\) gave no blocked signal within 5 s, though the adapter's signals say the library gives one/,
      ),
    });
  }, 90_000);
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
