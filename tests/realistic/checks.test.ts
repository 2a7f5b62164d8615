import { workloadVerdict } from '../../src/realistic/checks';
import { workloadFigures } from '../../src/realistic/summary';
import type { WorkloadOutcome } from '../../src/realistic/workload';
import { findingLine } from '../../src/suite-kit/findings';
import { syntheticOutcome } from './fixtures';

const verdictOf = (outcome: WorkloadOutcome, cycles?: Parameters<typeof workloadVerdict>[2]) =>
  workloadVerdict(outcome, workloadFigures(outcome), cycles);

describe('workloadVerdict', () => {
  it('finds nothing wrong with a clean run', () => {
    expect(verdictOf(syntheticOutcome())).toEqual({ findings: [], harnessProblems: [] });
  });

  it("tells the client's findings, with their evidence, from the harness's own failures", () => {
    const clean = syntheticOutcome();
    const delivered = Array.from(clean.ledger.delivered);
    delivered[3] = 0; // lost
    delivered[4] = 2; // an unflagged duplicate of a single publish
    const [consumer, other] = clean.consumerReports;
    const broken: WorkloadOutcome = {
      ...clean,
      ledger: { ...clean.ledger, delivered },
      rounds: [
        clean.rounds[0]!,
        { round: clean.options.rounds[1]!, drained: false, problem: 'measured: 98 of 100 messages delivered within 60000 ms' },
      ],
      consumerReports: [
        { ...consumer!, error: 'connection lost (reset: read ECONNRESET); recovery is off for this workload' },
        { ...other!, unhandled: ['unhandled rejection: Error: write ECONNRESET'] },
      ],
      harnessProblems: ['producer thread 1: did not finish within 15000 ms of the stop signal'],
      connectionsDownAtEnd: 1,
      foreignDeliveries: 2,
      queueMessagesLeft: null,
    };
    const verdict = verdictOf(broken);
    expect(verdict.findings.map((finding) => finding.kind)).toEqual([
      'thread_failed',
      'unhandled_error',
      'message_lost',
      'unexplained_duplicate',
      'foreign_delivery',
      'stalled',
      'not_recovered',
    ]);
    expect(verdict.findings.map(findingLine)).toEqual([
      'consumer thread 0: stopped on an error of the client (connection lost (reset: read ECONNRESET); recovery is off for this workload)',
      "consumer thread 1: 1 error(s) nobody handled inside the client (an application on Node's defaults would have crashed) (unhandled rejection: Error: write ECONNRESET)",
      'the workload: 1 published message(s) lost: never delivered (e.g. seq 3; 109 of 110 delivered)',
      'the workload: 1 duplicate(s) at-least-once does not explain (neither flagged redelivered nor a republished copy) (e.g. seq 4; 0 other duplicate(s) explained: 0 delivered flagged redelivered, 0 republished copies)',
      'the workload: 2 deliveries of messages never published (0 with a sequence number never published; 2 with a body the harness cannot read)',
      'measured: did not drain (measured: 98 of 100 messages delivered within 60000 ms)',
      "the workload: 1 connection(s) still down at the end (not back 10000 ms after the last round's grace)",
    ]);
    expect(verdict.harnessProblems).toEqual([
      'producer thread 1: did not finish within 15000 ms of the stop signal',
      'the queue could not be checked at the end',
    ]);
  });

  it('a thread stopped by a bound of the harness’s own is a harness problem, not a finding', () => {
    const clean = syntheticOutcome();
    const outcome: WorkloadOutcome = { ...clean, harnessProblems: ['producer thread 0: round 1 did not start within 20000 ms'] };
    expect(verdictOf(outcome)).toEqual({ findings: [], harnessProblems: ['producer thread 0: round 1 did not start within 20000 ms'] });
  });

  it('messages left in the queue at the end are a finding', () => {
    expect(verdictOf({ ...syntheticOutcome(), queueMessagesLeft: 7 }).findings).toEqual([
      expect.objectContaining({ kind: 'stalled', where: 'the queue', count: 7 }),
    ]);
  });
});

describe('workloadVerdict under reset cycles', () => {
  const hit = syntheticOutcome();
  const withFaults: WorkloadOutcome = {
    ...hit,
    consumerReports: hit.consumerReports.map((report) => ({ ...report, faults: 1 })),
    producerReports: hit.producerReports.map((report, index) => ({ ...report, reconnects: index })),
  };

  it('accepts faults that ran as planned and hit both sides', () => {
    expect(verdictOf(withFaults, { result: { cycles: [{ injectedNs: 1n, removedNs: 2n }] }, planned: 1 }).harnessProblems).toEqual([]);
  });

  it('says when cycles are missing, failed, or hit nobody: the harness’s failure', () => {
    expect(verdictOf(syntheticOutcome(), { result: undefined, planned: 3 }).harnessProblems).toEqual([
      'the reset cycles never ran',
      'the resets hit no consumer connection (none told of a fault or reconnected)',
      'the resets hit no producer connection (none told of a fault or reconnected)',
    ]);
    expect(verdictOf(withFaults, { result: { cycles: [], error: 'API down' }, planned: 2 }).harnessProblems).toEqual([
      'reset cycles failed: API down',
      '0 of 2 reset cycles ran (the round ended first?)',
    ]);
  });
});
