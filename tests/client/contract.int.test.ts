/**
 * The contract every client adapter keeps (src/client/contract/, the checks `bench check-adapter`
 * runs on an adapter from outside), for every registered client in both profiles, against the
 * real broker and the contract's own embedded proxy over real sockets: what it says of itself,
 * connect, publish plain and with confirms, consume with auto and manual ack within a prefetch
 * window on several consumers, a backlog larger than the prefetch, a reset reported as a typed
 * fault timed when it happened, recovery of publishers and consumers, localPort, a close that may
 * be called twice and leaves nothing on the broker, and every typed signal the library gives that
 * can be provoked without harming the broker. A confirm that never settles within its bound,
 * though the broker took the message, is what it is: a finding of the client, named as such with
 * its evidence (amqp091-go 1.5.0 drops one now and then), never a failure of the adapter nor a
 * hang; a fixture client whose confirms never settle shows the finding every time.
 */
import path from 'node:path';
import type { ClientSpec } from '../../src/client/api';
import { CONTRACT_CHECKS, ContractSession, runContract } from '../../src/client/contract';
import { ensureConnectedCheck, onFaultCheck, publisherRecoveryCheck } from '../../src/client/contract/recoveryChecks';
import { connectCheck, publishConsumeCheck } from '../../src/client/contract/trafficChecks';
import { allClientSpecs, clientInfo } from '../../src/client/registry';
import { getConfig } from '../../src/config';

const specs = allClientSpecs().map((spec): [string, ClientSpec] => [`${spec.name} (${spec.profile})`, spec]);
/** What a built-in adapter may leave unchecked: a signal its library does not give, and blocked / unblocked (no alarm on the broker). */
const ALLOWED_SKIP = /^not checked(?:: it needs a resource alarm|: the adapter says none)/;
/** A check's cleanup (closing what its group opened) runs at the start of the next one. */
const CLEANUP_MARGIN_MS = 20_000;
/** The one finding a check may end on: a confirm that never settled, with the client's library and version as evidence. */
const UNSETTLED_CONFIRM =
  / never settled within 5 s, though the broker took the message: a confirm the client never settled, a finding of the client as every suite reports it \(\S+ \S+(?:; its confirms: .+)?\)$/;

describe.each(specs)('client %s keeps the adapter contract (real broker, embedded proxy)', (_label, spec) => {
  let session: ContractSession | undefined;

  beforeAll(async () => {
    session = await ContractSession.open(spec, getConfig().amqpUrl);
  });

  afterAll(async () => {
    await session?.close();
  });

  for (const check of CONTRACT_CHECKS) {
    it(
      check.name,
      async () => {
        const outcome = await session!.run(check);
        if (outcome.status === 'failed') throw new Error(`${check.name}: ${outcome.words}`);
        if (outcome.status === 'skipped') expect(outcome.words).toMatch(ALLOWED_SKIP);
        if (outcome.status === 'finding') {
          expect(outcome.words).toMatch(UNSETTLED_CONFIRM);
          const { library, version } = clientInfo(spec);
          expect(outcome.words).toContain(`(${library} ${version}`);
        }
      },
      check.boundMs + CLEANUP_MARGIN_MS,
    );
  }
});

describe('a client whose confirms never settle (a fixture: every confirm lost, the messages delivered)', () => {
  const module = path.resolve(__dirname, '../fixtures/adapters/loses-confirms.js');
  const checks = [connectCheck, publishConsumeCheck, onFaultCheck, ensureConnectedCheck, publisherRecoveryCheck];

  it('ends each confirm-awaiting check on the finding, with its evidence, and fails none', async () => {
    const { outcomes } = await runContract(
      { name: 'fixture-loses-confirms', profile: 'defaults', module },
      getConfig().amqpUrl,
      undefined,
      checks,
    );
    expect(outcomes.map((outcome) => [outcome.name, outcome.status])).toEqual([
      ['connect', 'passed'],
      ['publish, consume (auto ack)', 'finding'],
      ['onFault', 'passed'],
      ['ensureConnected', 'passed'],
      ['publisher after recovery', 'finding'],
    ]);
    const words = (name: string) => outcomes.find((outcome) => outcome.name === name)!.words;
    const { version } = clientInfo({ name: 'amqplib', profile: 'defaults' });
    expect(words('publish, consume (auto ack)')).toBe(
      `a publish with confirms never settled within 5 s, though the broker took the message: a confirm the client never settled, a finding of the client as every suite reports it (amqplib ${version})`,
    );
    expect(words('publisher after recovery')).toMatch(
      /^a confirmed publish on the publisher opened before the reset never settled within 5 s, though the broker took the message: /,
    );
    for (const outcome of outcomes.filter((each) => each.status === 'finding')) expect(outcome.elapsedMs).toBeLessThan(10_000);
  }, 90_000);
});
