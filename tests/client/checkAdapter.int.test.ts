/**
 * The adapter contract run on adapters from outside (tests/fixtures/adapters/, plain JavaScript
 * modules loaded as a user's are), against the real broker and the contract's own proxy: a good
 * one passes every check; each deliberately broken one fails the check of its defect, in words
 * that name it, and no other.
 */
import path from 'node:path';
import { runContract, type CheckOutcome } from '../../src/client/contract';
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
