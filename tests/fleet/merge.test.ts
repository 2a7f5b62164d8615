/**
 * The fleet's merge against agents built from known samples: histograms added (the merged p99 is
 * the p99 of every sample, not an average of the agents' p99s), messages accounted across agents
 * by sequence number, series summed point by point with percentiles from the merged interval
 * histograms, end-to-end figures left out when producers and consumers shared no clock, and an
 * absent agent named with what the fleet lacks.
 */
import { mergeFleet } from '../../src/fleet/merge';
import { loadReportMarkdown } from '../../src/report/loadReport';
import { schemaProblem } from '../../src/results/schemas';
import { agentFile, workloadOf } from './agentFiles';

const workload = workloadOf({ producers: 2, consumers: 2, queues: 2, rate: 200, duration: '1s', confirm_window: 10 });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** Agent 0 saw latencies 1..100 ms, agent 1 saw 101..200 ms. */
const agents = [
  agentFile({
    index: 0,
    count: 2,
    workload,
    published: 100,
    consumed: range(1, 100).map((ms) => ({ sequence: 2 * (ms - 1), latencyMs: ms })),
    confirmed: range(0, 99).map((k) => ({ sequence: 2 * k, latencyMs: 2 })),
  }),
  agentFile({
    index: 1,
    count: 2,
    workload,
    published: 100,
    consumed: range(101, 200).map((ms) => ({ sequence: 2 * (ms - 101) + 1, latencyMs: ms })),
    confirmed: range(0, 99).map((k) => ({ sequence: 2 * k + 1, latencyMs: 4 })),
  }),
];

describe('merging a fleet', () => {
  test('every agent file built here follows its schema', () => {
    for (const file of agents) expect(schemaProblem('fleet-agent-result.schema.json', file)).toBeUndefined();
  });

  test('latency histograms are added: the merged p99 is that of all 200 samples, not the mean of the agents’ p99s', () => {
    const merged = mergeFleet({ runId: 'fleet-test', agentCount: 2, workload, files: agents, absent: [] });
    const e2e = merged.latency_ms.end_to_end;
    expect(e2e.count).toBe(200);
    // HDR keeps three significant digits: within 0.1% of the exact order statistics.
    expect(Math.abs(e2e.p50! - 100) / 100).toBeLessThan(0.001);
    expect(Math.abs(e2e.p99! - 198) / 198).toBeLessThan(0.001);
    expect(Math.abs(e2e.max! - 200) / 200).toBeLessThan(0.001);
    const p99Of = (index: number) => (agents[index]!.result!.latency_ms as { end_to_end: { p99: number } }).end_to_end.p99;
    const meanOfP99s = (p99Of(0) + p99Of(1)) / 2;
    expect(meanOfP99s).toBeCloseTo(149, 0);
    expect(Math.abs(e2e.p99! - meanOfP99s)).toBeGreaterThan(40);
    // Confirms: 100 at 2 ms and 100 at 4 ms.
    expect(merged.latency_ms.confirm.count).toBe(200);
    expect(merged.latency_ms.confirm.p50).toBeCloseTo(2, 2);
    expect(merged.latency_ms.confirm.p99).toBeCloseTo(4, 2);
  });

  test('messages are accounted by sequence number across agents: one consumed elsewhere is not lost, one consumed twice is a duplicate', () => {
    // Agent 0 confirms 0..9; agent 1 consumes 0..8 and 3 again; agent 0 consumes nothing.
    const files = [
      agentFile({
        index: 0,
        count: 2,
        workload,
        published: 10,
        consumed: [],
        confirmed: range(0, 9).map((sequence) => ({ sequence, latencyMs: 1 })),
      }),
      agentFile({ index: 1, count: 2, workload, consumed: [...range(0, 8), 3].map((sequence) => ({ sequence, latencyMs: 5 })) }),
    ];
    const merged = mergeFleet({ runId: 'fleet-test', agentCount: 2, workload, files, absent: [] });
    expect(merged.messages).toMatchObject({
      published: 10,
      confirmed: 10,
      consumed: 10,
      consumed_unique: 9,
      duplicates: 1,
      not_consumed: 1,
      lost_confirmed: 1,
    });
  });

  test('the series is summed point by point, its percentiles read from the merged interval histograms', () => {
    const files = [
      agentFile({
        index: 0,
        count: 2,
        workload,
        consumed: [],
        points: [
          { published: 100, e2eMs: range(1, 99) },
          { published: 90, e2eMs: [5] },
        ],
      }),
      agentFile({ index: 1, count: 2, workload, consumed: [], points: [{ published: 110, e2eMs: [1000] }] }),
    ];
    const merged = mergeFleet({ runId: 'fleet-test', agentCount: 2, workload, files, absent: [] });
    expect(merged.timeseries.map((point) => point.published)).toEqual([210, 90]);
    expect(merged.timeseries.map((point) => point.consumed)).toEqual([100, 1]);
    expect(merged.timeseries[0]!.connections_up).toBe(4);
    // 100 samples: 1..99 ms and one of 1000 ms; p50 is 50 ms, p99 99 ms (averaging the agents' p99s would give ~549).
    expect(merged.timeseries[0]!.e2e_p50_ms).toBeCloseTo(50, 0);
    expect(merged.timeseries[0]!.e2e_p99_ms).toBeCloseTo(99, 0);
    expect(merged.timeseries[1]!.e2e_p99_ms).toBeCloseTo(5, 1);
  });

  test('agents on two machines sharing queues: end-to-end figures are left out and said so; confirm latency and rates stay', () => {
    const files = agents.map((file, index) => ({ ...file, agent: { ...file.agent, machine_id: `boot:${index}` } }));
    const merged = mergeFleet({ runId: 'fleet-test', agentCount: 2, workload, files, absent: [] });
    expect(merged.fleet.end_to_end).toBe('left_out');
    expect(merged.latency_ms.end_to_end.count).toBe(0);
    expect(merged.latency_ms.confirm.count).toBe(200);
    expect(merged.fleet.agents.map((row) => row.e2e_p99_ms)).toEqual([null, null]);
    expect(merged.fleet.clock_note).toMatch(/2 machines .*end-to-end latency left out/);
    expect(merged.timeseries.every((point) => point.e2e_p99_ms === null)).toBe(true);
  });

  test('agents on two machines each consuming only its own messages: end-to-end merged (each timed on one clock)', () => {
    const files = agents.map((file, index) => ({
      ...file,
      agent: { ...file.agent, machine_id: `boot:${index}` },
      share: { ...file.share, accounts_alone: true },
    }));
    const merged = mergeFleet({ runId: 'fleet-test', agentCount: 2, workload, files, absent: [] });
    expect(merged.fleet.end_to_end).toBe('merged');
    expect(merged.latency_ms.end_to_end.count).toBe(200);
  });

  test('an agent without a result is named with why, the rate is against the whole workload, and nothing is called lost', () => {
    const merged = mergeFleet({
      runId: 'fleet-test',
      agentCount: 3,
      workload,
      files: agents,
      absent: [{ agent: 2, reason: 'exited with SIGKILL 3.2 s after it was started' }],
    });
    expect(merged.fleet.absent).toEqual([{ agent: 2, reason: 'exited with SIGKILL 3.2 s after it was started' }]);
    expect(merged.fleet.agents_merged).toBe(2);
    expect(merged.aborted).toBe(true);
    expect(merged.messages.lost_confirmed).toBeNull();
    expect(merged.notes[0]).toMatch(/MISSING agent 2 \(exited with SIGKILL/);
  });

  test('a late agent is named from its own file; an agent never heard of is named too', () => {
    const late = { ...agents[1]!, status: 'late' as const, error: 'the start was 812 ms past', result: null };
    const merged = mergeFleet({ runId: 'fleet-test', agentCount: 3, workload, files: [agents[0]!, late], absent: [] });
    expect(merged.fleet.absent).toEqual([
      { agent: 1, reason: 'late: the start was 812 ms past' },
      { agent: 2, reason: 'no result arrived' },
    ]);
  });

  test('no agent ran: nothing to merge, said with every reason', () => {
    expect(() =>
      mergeFleet({ runId: 'fleet-test', agentCount: 1, workload, files: [], absent: [{ agent: 0, reason: 'never ready' }] }),
    ).toThrow(/no agent of 1 ran its share: agent 0: never ready/);
  });

  describe("the agents' own lateness, said beside the merged figure", () => {
    const tenSeconds = workloadOf({ producers: 2, consumers: 2, queues: 2, rate: 20, duration: '10s' });
    /** 100 messages: 90 sent on time and consumed in 2 ms, 10 sent 200 ms late and consumed 210 ms after their intended time; the late ones in the first 3 s. */
    const lateAgent = (index: number, publishingEndedMs?: number) =>
      agentFile({
        index,
        count: 2,
        workload: tenSeconds,
        published: 100,
        lagMs: [...Array<number>(10).fill(200), ...Array<number>(90).fill(0)],
        consumed: range(0, 99).map((k) => ({ sequence: 2 * k + index, latencyMs: k < 10 ? 210 : 2 })),
        points: range(1, 10).map((second) => ({ published: 10, e2eMs: [2], lagMs: [second <= 3 ? 200 : 1] })),
        ...(publishingEndedMs === undefined ? {} : { publishingEndedMs }),
      });

    test('schedule lag that is the tail: the merged figure is as recorded, and the fleet says it is the agents sending late, when, per agent, and on one machine', () => {
      const merged = mergeFleet({
        runId: 'fleet-test',
        agentCount: 2,
        workload: tenSeconds,
        files: [lateAgent(0), lateAgent(1)],
        absent: [],
      });
      // Nothing altered: 200 samples, 20 of them at 210 ms.
      expect(merged.latency_ms.end_to_end.count).toBe(200);
      expect(merged.latency_ms.end_to_end.p99).toBeCloseTo(210, 0);
      expect(merged.latency_ms.schedule_lag.p99).toBeCloseTo(200, 0);
      expect(merged.fleet.agents.map((row) => row.schedule_lag_p99_ms)).toEqual([expect.closeTo(200, 0), expect.closeTo(200, 0)]);
      const note = merged.fleet.lateness_note!;
      expect(note).toMatch(
        /the agents sent late: schedule lag \(sent − intended\) p99 200\.\d+ ms against the end-to-end p99 of 210\.\d+ ms/,
      );
      expect(note).toMatch(/per agent 0: 200\.\d+, 1: 200\.\d+ ms/);
      expect(note).toMatch(
        /the in-flight cap \(the socket pushing back\) was full in 0 of 10 measured seconds only: the agents' own processes were late themselves/,
      );
      expect(note).toMatch(
        /worst in the first 3 s from the start \(schedule lag p99 per second 200(\.\d)?, 200(\.\d)?, 200(\.\d)? ms; median of the other seconds 1 ms\).* --warmup/,
      );
      expect(note).toMatch(
        /2 agent processes and the coordinator shared this machine's cores \(with the broker, when it runs here\): compare with one process/,
      );
      expect(note).not.toMatch(/catch-up/);
      expect(merged.notes).toContain(note);
      expect(loadReportMarkdown(merged, null)).toContain(`**Late sending:** ${note}.`);
    });

    test('a schedule that ran over its end is said (the achieved rate counts the catch-up); agents on time say nothing', () => {
      const overran = mergeFleet({
        runId: 'fleet-test',
        agentCount: 2,
        workload: tenSeconds,
        files: [lateAgent(0, 14_200), lateAgent(1)],
        absent: [],
      });
      expect(overran.fleet.lateness_note).toMatch(/the last message was sent 4\.2 s after the schedule's end \(catch-up\)/);
      const onTime = mergeFleet({ runId: 'fleet-test', agentCount: 2, workload, files: agents, absent: [] });
      expect(onTime.fleet.lateness_note).toBeNull();
      expect(loadReportMarkdown(onTime, null)).not.toContain('Late sending');
    });
  });
});
