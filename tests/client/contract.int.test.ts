/**
 * The contract every client adapter keeps (src/client/contract/, the checks `bench check-adapter`
 * runs on an adapter from outside), for every registered client in both profiles, against the
 * real broker and the contract's own embedded proxy over real sockets: what it says of itself,
 * connect, publish plain and with confirms, consume with auto and manual ack within a prefetch
 * window on several consumers, a backlog larger than the prefetch, a reset reported as a typed
 * fault timed when it happened, recovery of publishers and consumers, localPort, a close that may
 * be called twice and leaves nothing on the broker, and every typed signal the library gives that
 * can be provoked without harming the broker.
 */
import type { ClientSpec } from '../../src/client/api';
import { CONTRACT_CHECKS, ContractSession } from '../../src/client/contract';
import { allClientSpecs } from '../../src/client/registry';
import { getConfig } from '../../src/config';

const specs = allClientSpecs().map((spec): [string, ClientSpec] => [`${spec.name} (${spec.profile})`, spec]);
/** What a built-in adapter may leave unchecked: a signal its library does not give, and blocked / unblocked (no alarm on the broker). */
const ALLOWED_SKIP = /^not checked(?:: it needs a resource alarm|: the adapter says none)/;
/** A check's cleanup (closing what its group opened) runs at the start of the next one. */
const CLEANUP_MARGIN_MS = 20_000;

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
      },
      check.boundMs + CLEANUP_MARGIN_MS,
    );
  }
});
