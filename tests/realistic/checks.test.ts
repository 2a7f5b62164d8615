import { faultProblems, workloadProblems } from '../../src/realistic/checks';
import { workloadFigures } from '../../src/realistic/summary';
import type { WorkloadOutcome } from '../../src/realistic/workload';
import { syntheticOutcome } from './fixtures';

const problemsOf = (outcome: WorkloadOutcome) => workloadProblems(outcome, workloadFigures(outcome));

describe('workloadProblems', () => {
  it('finds nothing wrong with a clean run', () => {
    expect(problemsOf(syntheticOutcome())).toEqual([]);
  });

  it('names every problem of a broken run, in words', () => {
    const clean = syntheticOutcome();
    const delivered = Array.from(clean.ledger.delivered);
    delivered[3] = 0; // lost
    delivered[4] = 2; // an unflagged duplicate of a single publish
    const broken: WorkloadOutcome = {
      ...clean,
      ledger: { ...clean.ledger, delivered },
      rounds: clean.rounds.slice(0, 1),
      errors: ['consumer thread 1: connection lost: read ECONNRESET'],
      connectionsDownAtEnd: 1,
      foreignDeliveries: 2,
      queueMessagesLeft: null,
    };
    expect(problemsOf(broken)).toEqual([
      'consumer thread 1: connection lost: read ECONNRESET',
      '1 messages lost (baseline: published), e.g. seq 3',
      '1 duplicates not explained by redelivery or republish, e.g. seq 4',
      '0 phantom and 2 foreign deliveries',
      'only 1 of 2 rounds ran',
      "1 connections still down at the end (10000 ms after the last round's grace)",
      'queue holds an unknown number of messages at the end',
    ]);
  });
});

describe('faultProblems', () => {
  const hit = { ...syntheticOutcome(), consumerReconnects: 2, producerReconnects: 1 };

  it('accepts faults that ran as planned and hit both sides', () => {
    expect(faultProblems(hit, { cycles: [{ injectedNs: 1n, removedNs: 2n }] }, 1)).toEqual([]);
  });

  it('says when cycles are missing, failed, or hit nobody', () => {
    expect(faultProblems(syntheticOutcome(), undefined, 3)).toEqual([
      'the reset cycles never ran',
      'no consumer connection was reset and reconnected',
      'no producer connection was reset and reconnected',
    ]);
    expect(faultProblems(hit, { cycles: [], error: 'API down' }, 2)).toEqual([
      'reset cycles failed: API down',
      '0 of 2 reset cycles ran (the round ended first?)',
    ]);
  });
});
