/**
 * A run whose senders were late says so beside its figures (the result's notes, the printed
 * summary, report.md): the schedule lag as a share of the tail, the start when it was the worst,
 * and publishing past the schedule's end — the figures themselves as recorded.
 */
import { summaryTable } from '../../src/cli/loadOutput';
import { buildLoadResult, type LoadResult } from '../../src/load/result';
import { LoadRecorder } from '../../src/load/recorder';
import type { TimeSeriesPoint } from '../../src/load/timeseries';
import { loadReportMarkdown } from '../../src/report/loadReport';
import { workloadOf } from '../fleet/agentFiles';

const MS = 1_000_000n;
const workload = workloadOf({ producers: 1, consumers: 1, rate: 10, duration: '10s' });

/** 100 messages: `lateMs` of schedule lag on the first 10 (the first 3 s), each consumed 10 ms after it was sent. */
function runOf(lateMs: number, publishingEndedMs = 10_000, outstanding = 0): LoadResult {
  const recorder = new LoadRecorder(0n, 0n);
  for (let sequence = 0; sequence < 100; sequence += 1) {
    const intendedNs = BigInt(sequence) * 100n * MS;
    const sentNs = intendedNs + (sequence < 10 ? BigInt(lateMs) * MS : 0n);
    recorder.sent(intendedNs, sentNs);
    recorder.consumed(sequence, intendedNs, sentNs + 10n * MS);
  }
  const points: TimeSeriesPoint[] = Array.from({ length: 10 }, (_, k) => ({
    t_s: k + 1,
    published: 10,
    confirmed: 0,
    consumed: 10,
    confirm_p50_ms: null,
    confirm_p99_ms: null,
    e2e_p50_ms: 10,
    e2e_p99_ms: 10,
    schedule_lag_p99_ms: k < 3 ? lateMs : 0.5,
    outstanding_confirms: outstanding,
    connections_up: 2,
    fault_state: 'none',
  }));
  return buildLoadResult({
    workload,
    client: { label: 'amqplib (defaults)', info: { name: 'amqplib' } as never },
    viaProxy: true,
    recorder,
    schedulePaced: true,
    totalMessages: 100,
    intendedMeasured: 100,
    unsent: 0,
    measuredMs: 10_000,
    publishingEndedMs,
    endedMs: publishingEndedMs + 20,
    points,
    faults: [],
    connectionFaults: [],
    aborted: false,
    intervalMs: 1000,
  });
}

describe("a process's own lateness, said beside its figures", () => {
  test('schedule lag that is the tail: said in the notes, the summary and the report; the figures as recorded', () => {
    const result = runOf(500);
    expect(result.latency_ms.end_to_end.p99).toBeCloseTo(510, 0);
    const note = result.notes.find((each) => each.startsWith('the publishers sent late'))!;
    expect(note).toMatch(/schedule lag \(sent − intended\) p99 500(\.\d+)? ms against the end-to-end p99 of 510(\.\d+)? ms/);
    expect(note).toMatch(
      /the in-flight cap \(the socket pushing back\) was full in 0 of 10 measured seconds only: this process was late itself, its event loop behind/,
    );
    expect(note).toMatch(
      /worst in the first 3 s from the start \(schedule lag p99 per second 500, 500, 500 ms; median of the other seconds 0\.5 ms\).*--warmup/,
    );
    expect(summaryTable(result)).toContain(`LATE SENDING: ${note}`);
    expect(loadReportMarkdown(result, null)).toContain(`**Late sending:** ${note}.`);
  }, 10_000);

  test("publishers waiting on a full window most of the run: the broker's pace (or its answers read late) is named, not the process's CPU", () => {
    const note = runOf(500, 10_000, 2000).notes.find((each) => each.startsWith('the publishers sent late'))!;
    expect(note).toMatch(
      /the publishers waited on a full in-flight cap \(the socket pushing back\) in 10 of 10 measured seconds: the broker's answers came back slower than the schedule/,
    );
    expect(note).not.toMatch(/event loop behind/);
  }, 10_000);

  test('publishing past the schedule is said; a sender on time says nothing', () => {
    expect(runOf(0, 13_500).notes.join('\n')).toMatch(
      /the last message was sent 3\.5 s after the schedule's end \(catch-up\): the achieved rate counts/,
    );
    const onTime = runOf(0);
    expect(onTime.notes.join('\n')).not.toMatch(/sent late|catch-up/);
    expect(summaryTable(onTime)).not.toContain('LATE SENDING');
  }, 10_000);
});
