/** One bound for a sequence of waits (a publisher's awaited publishes), with one timer for all of them. */
import { BoundPassedError, SequenceBound } from '../../src/client/bounded';
import { ClientFaultError } from '../../src/client/types';
import { trapUnhandled } from '../../src/client/unhandledTrap';

describe('a bound on a sequence of waits', () => {
  it('passes results and rejections through, and fails a wait that outlasts the bound as a deadline fault', async () => {
    const bound = new SequenceBound(30, 'no hand-over within 30 ms');
    try {
      await expect(bound.wait(Promise.resolve(7))).resolves.toBe(7);
      await expect(bound.wait(Promise.reject(new Error('nacked')))).rejects.toThrow('nacked');
      // A publish a client holds for ever: failed once the bound (plus one check interval) passed.
      const held = new Promise<never>(() => undefined);
      const failure = await bound.wait(held).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ClientFaultError);
      expect(failure).toBeInstanceOf(BoundPassedError);
      expect((failure as BoundPassedError).boundMs).toBe(30);
      expect((failure as ClientFaultError).kind).toBe('deadline');
      expect((failure as ClientFaultError).message).toBe('no hand-over within 30 ms');
      // The next wait starts its own clock: a quick one is not failed by the earlier one's age.
      await expect(bound.wait(new Promise((resolve) => setTimeout(() => resolve('late but within'), 5)))).resolves.toBe('late but within');
    } finally {
      bound.stop();
    }
  });

  it('a late rejection of a wait already failed is not an unhandled rejection', async () => {
    const bound = new SequenceBound(10, '');
    const trap = trapUnhandled();
    let rejectLater: (error: Error) => void = () => undefined;
    const late = new Promise<never>((_, reject) => (rejectLater = reject));
    try {
      await expect(bound.wait(late)).rejects.toThrow('no answer within 10 ms');
      rejectLater(new Error('channel closed'));
      await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      bound.stop();
      await trap.release();
    }
    expect(trap.trapped).toEqual([]);
  });
});
