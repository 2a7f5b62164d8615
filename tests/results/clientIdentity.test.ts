/**
 * Results of different clients (or of one client in its two profiles) are never compared as one
 * another's previous run: not as the previous run's value, not through its replicates, not as the
 * history that judges a metric without replicates, not in choosing the baseline run. The client
 * fields are the ones the suites write (fixtures/clients.ts `clientFields`).
 */
import { clientFields } from '../../fixtures/clients';
import type { ClientSpec } from '../../src/client/api';
import { chooseBaseline } from '../../src/results/baseline';
import { compareRuns, resultKey, type ComparableRun } from '../../src/results/compare';
import type { HistoryEntry } from '../../src/results/history';
import type { RawResult } from '../../src/results/rawResult';
import { environment, publishResult, recoveryResult } from './helpers';

const AMQPLIB: ClientSpec = { name: 'amqplib', profile: 'defaults' };
const AMQPLIB_NORMALISED: ClientSpec = { name: 'amqplib', profile: 'normalised' };
const RABBITMQ_CLIENT: ClientSpec = { name: 'rabbitmq-client', profile: 'defaults' };

/** `result` as the suites record it for `client`. */
function of(client: ClientSpec, result: RawResult): RawResult {
  const fields = clientFields(client);
  return { ...result, parameters: { ...result.parameters, ...fields.parameters }, client: fields.client };
}

/** One run's results for `client`: publish rate `rate` (5 replicates), RST detection `detectionMs` (no replicates). */
const resultsFor = (client: ClientSpec, rate: number, detectionMs: number): RawResult[] => [
  of(client, publishResult(10, 'plain', rate)),
  of(client, recoveryResult('recovery_after_reset_peer', 10, 'reset_peer', detectionMs, 300)),
];

const runOf = (runId: string, results: RawResult[]): ComparableRun => ({
  run_id: runId,
  started_at: '2025-01-31T12:00:00.000Z',
  environment: environment(),
  results,
});

const entryOf = (runId: string, results: RawResult[]): HistoryEntry =>
  ({ run_id: runId, status: 'passed', fingerprint: 'abcd1234', results, tests_run: 2 }) as unknown as HistoryEntry;

describe('results of different clients', () => {
  it('have different identities: the client and its profile are part of the key', () => {
    const keys = [AMQPLIB, AMQPLIB_NORMALISED, RABBITMQ_CLIENT].map((client) => resultKey(of(client, publishResult(10, 'plain', 1000))));
    expect(new Set(keys).size).toBe(3);
    expect(keys[0]).toContain('client=amqplib');
    expect(keys[1]).toContain('client_profile=normalised');
  });

  it('are never matched: another client is "added"/"removed", not better or worse', () => {
    const comparison = compareRuns(
      runOf('run_amqplib', resultsFor(AMQPLIB, 50_000, 2)),
      runOf('run_rc', resultsFor(RABBITMQ_CLIENT, 10_000, 40)),
    );
    expect(comparison.matched).toEqual([]);
    expect(comparison.added).toHaveLength(2);
    expect(comparison.removed).toHaveLength(2);
    expect(comparison.added.every((key) => key.includes('client=rabbitmq-client'))).toBe(true);
  });

  it('in one run with several clients, each is compared with its own previous figures only', () => {
    const previous = runOf('run_1', [
      ...resultsFor(AMQPLIB, 50_000, 2),
      ...resultsFor(AMQPLIB_NORMALISED, 52_000, 2),
      ...resultsFor(RABBITMQ_CLIENT, 10_000, 40),
    ]);
    const current = runOf('run_2', [
      ...resultsFor(AMQPLIB, 50_500, 2.1),
      ...resultsFor(AMQPLIB_NORMALISED, 51_000, 2),
      ...resultsFor(RABBITMQ_CLIENT, 10_100, 41),
    ]);
    const comparison = compareRuns(previous, current);
    expect(comparison.matched).toHaveLength(6);
    const rates = comparison.matched
      .filter((result) => result.name === 'publish_throughput')
      .map((result) => [
        result.parameters.client,
        result.parameters.client_profile,
        result.metrics.find((m) => m.metric === 'throughput_msgs_per_sec')!.previous,
      ]);
    // Each client's previous value is its own (a cross-match would show 50,000 against 10,100: -80%).
    expect(rates).toEqual([
      ['amqplib', 'defaults', 50_000],
      ['amqplib', 'normalised', 52_000],
      ['rabbitmq-client', 'defaults', 10_000],
    ]);
    expect(
      comparison.matched.flatMap((result) => result.metrics).filter((metric) => metric.verdict === 'worse' || metric.verdict === 'better'),
    ).toEqual([]);
  });

  it("never make another client's runs the history that judges a metric without replicates", () => {
    // Five earlier runs of amqplib, then rabbitmq-client twice: its RST detection (no replicates)
    // has no history of its own yet, so it is shown, not judged against amqplib's.
    const history = Array.from({ length: 5 }, (_, index) => entryOf(`run_a${index}`, resultsFor(AMQPLIB, 50_000, 2 + index / 10)));
    const previous = entryOf('run_rc1', resultsFor(RABBITMQ_CLIENT, 10_000, 40));
    const comparison = compareRuns(
      runOf('run_rc1', previous.results as RawResult[]),
      runOf('run_rc2', resultsFor(RABBITMQ_CLIENT, 10_000, 80)),
      {
        history: [...history, previous],
      },
    );
    const detection = comparison.matched
      .find((result) => result.name === 'recovery_after_reset_peer')!
      .metrics.find((metric) => metric.metric === 'error_detection_latency_ms')!;
    expect(detection.baseline.kind).toBe('none');
    expect(detection.verdict).not.toBe('worse');
  });

  it('choose as baseline the latest run of the same client, passing over a later run of another client', () => {
    const ownRun = entryOf('run_rc', resultsFor(RABBITMQ_CLIENT, 10_000, 40));
    const otherClientLater = entryOf('run_amqplib', resultsFor(AMQPLIB, 50_000, 2));
    const currentKeys = new Set(resultsFor(RABBITMQ_CLIENT, 10_000, 40).map((result) => resultKey(result)));
    expect(chooseBaseline([ownRun, otherClientLater], currentKeys, resultKey)?.previous.run_id).toBe('run_rc');
  });
});
