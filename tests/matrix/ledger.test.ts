/**
 * A thread's book of its publishes (pure): the class of each publish is fixed at the end of the
 * settle bound, so what close() does to a pending publish afterwards cannot turn a hung publish
 * into a rejected one.
 */
import { ClientFaultError } from '../../src/client/types';
import { PublishLedger } from '../../src/matrix/ledger';
import { PublishPhase, PublishState } from '../../src/matrix/report';

describe('PublishLedger', () => {
  it('keeps a publish pending at the end of the settle bound hung, though close() rejects it later', () => {
    const ledger = new PublishLedger();
    ledger.published(0, PublishPhase.BEFORE, 10n);
    ledger.published(1, PublishPhase.DURING_FAULT, 20n);
    ledger.published(2, PublishPhase.DURING_FAULT, 30n);
    ledger.confirmed(0);
    ledger.failed(1, new ClientFaultError('connection lost', 40n, 'reset'));
    ledger.delivered(0, 50n);
    ledger.delivered(0, 60n);
    ledger.classAll();
    ledger.failed(2, new ClientFaultError('Connection closed (by close())', 70n, 'closed'));
    const report = ledger.report();
    expect([...report.state]).toEqual([PublishState.CONFIRMED, PublishState.REJECTED, PublishState.PENDING]);
    expect(report.settledOnlyByClose).toBe(1);
    expect(report.settledAtNs[2]).toBe(0n); // what came after the bound is not its fate
    expect(report.rejections.map((rejection) => rejection.message)).toEqual([expect.stringContaining('connection lost')]);
    expect([...report.deliveries]).toEqual([2, 0, 0]);
    expect([...report.deliveredAtNs]).toEqual([50n, 0n, 0n]);
    expect([...report.lastDeliveredAtNs]).toEqual([60n, 0n, 0n]);
  });
});
