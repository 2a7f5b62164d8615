import { accountDeliveries, lossPercent, type LedgerCounts } from '../../src/suite-kit/accounting';

/** A ledger from per-sequence tuples [published, confirmed, delivered, redelivered]. */
function ledger(...rows: [number, number, number, number][]): LedgerCounts {
  return {
    published: rows.map((row) => row[0]),
    confirmed: rows.map((row) => row[1]),
    delivered: rows.map((row) => row[2]),
    redelivered: rows.map((row) => row[3]),
  };
}

describe('accountDeliveries: at-least-once accounting over sequence numbers', () => {
  it('counts a clean run: every message once', () => {
    const account = accountDeliveries(ledger([1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 0]), { baseline: 'confirmed' });
    expect(account).toMatchObject({
      published: 3,
      confirmed: 3,
      deliveredUnique: 3,
      deliveries: 3,
      duplicates: 0,
      lost: 0,
      unexplainedDuplicates: 0,
      phantom: 0,
      republished: 0,
    });
  });

  it('reports a confirmed message that never arrived as lost, with its sequence number', () => {
    const account = accountDeliveries(ledger([1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 0]), { baseline: 'confirmed' });
    expect(account.lost).toBe(1);
    expect(account.lostSeqs).toEqual([1]);
    expect(lossPercent(account)).toBeCloseTo(100 / 3, 10);
  });

  it('does not count an unconfirmed message that never arrived as lost (its publish may have failed)', () => {
    const account = accountDeliveries(ledger([1, 0, 0, 0], [1, 1, 1, 0]), { baseline: 'confirmed' });
    expect(account.lost).toBe(0);
    expect(account.confirmed).toBe(1);
  });

  it('counts it as lost when the baseline is every published message (no confirms)', () => {
    const account = accountDeliveries(ledger([1, 0, 0, 0], [1, 0, 1, 0]), { baseline: 'published' });
    expect(account.lost).toBe(1);
    expect(lossPercent(account)).toBe(50);
  });

  it('allows a duplicate the broker flagged redelivered (an ack that died with the connection)', () => {
    const account = accountDeliveries(ledger([1, 1, 2, 1]), { baseline: 'confirmed' });
    expect(account).toMatchObject({ duplicates: 1, redeliveries: 1, unexplainedDuplicates: 0 });
  });

  it('allows one more unflagged delivery per republished copy (unconfirmed when the fault hit)', () => {
    const account = accountDeliveries(ledger([2, 1, 2, 0]), { baseline: 'confirmed' });
    expect(account).toMatchObject({ republished: 1, duplicates: 1, unexplainedDuplicates: 0 });
  });

  it('flags a duplicate neither rule explains', () => {
    const account = accountDeliveries(ledger([1, 1, 1, 0], [1, 1, 2, 0], [2, 1, 4, 1]), { baseline: 'confirmed' });
    // seq 1: two unflagged deliveries of one copy; seq 2: three unflagged of two copies.
    expect(account.unexplainedDuplicates).toBe(2);
    expect(account.unexplainedSeqs).toEqual([1, 2]);
    expect(account.duplicates).toBe(4);
  });

  it('allows a flagged first delivery (the earlier one died in flight) without calling it a duplicate', () => {
    const account = accountDeliveries(ledger([1, 1, 1, 1]), { baseline: 'confirmed' });
    expect(account).toMatchObject({ duplicates: 0, redeliveries: 1, unexplainedDuplicates: 0, lost: 0 });
  });

  it('reports a delivery of a never-published sequence number as phantom', () => {
    const account = accountDeliveries(ledger([1, 1, 1, 0], [0, 0, 1, 0]), { baseline: 'confirmed' });
    expect(account.phantom).toBe(1);
    expect(account.phantomSeqs).toEqual([1]);
  });

  it('counts deliveries of unconfirmed messages (the confirm was lost, not the message)', () => {
    const account = accountDeliveries(ledger([1, 0, 1, 0]), { baseline: 'confirmed' });
    expect(account.deliveredUnconfirmed).toBe(1);
    expect(account.lost).toBe(0);
  });

  it('accounts for a range only, and caps the example lists', () => {
    const rows = Array.from({ length: 30 }, (): [number, number, number, number] => [1, 1, 0, 0]);
    const account = accountDeliveries(ledger(...rows), { baseline: 'confirmed', from: 5, to: 30, listLimit: 3 });
    expect(account.lost).toBe(25);
    expect(account.lostSeqs).toEqual([5, 6, 7]);
  });

  it('reports 0 % loss for an empty baseline', () => {
    expect(lossPercent(accountDeliveries(ledger(), { baseline: 'published' }))).toBe(0);
  });
});
