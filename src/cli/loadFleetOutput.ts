/**
 * What a fleet's coordinator prints: the fleet's progress from the agents' alive messages (about
 * once a second), and at the end one row per agent with what the fleet lacks.
 */
import type { ControlEnvelope } from '../fleet/protocol';
import type { FleetSection } from '../fleet/merge';
import type { FleetResult } from '../fleet/merge';
import { fmt, summaryTable, whereLines, writeAndRecordLoad, type RecordLoadOptions } from './loadOutput';

/** Records a merged fleet like any load run and prints its table, one row per agent; resolves with the exit code (1 when an agent is missing). */
export async function recordFleet(merged: FleetResult, options: RecordLoadOptions): Promise<number> {
  const { archivePath } = await writeAndRecordLoad(merged, options);
  process.stdout.write(`${summaryTable(merged)}\n\n${fleetTable(merged.fleet)}\n${whereLines(options.outDir, archivePath)}`);
  return merged.fleet.absent.length > 0 || merged.aborted ? 1 : 0;
}

type Alive = Extract<ControlEnvelope, { kind: 'alive' }>;

/** A progress printer: the fleet's rates over the last second or so, and how many agents reported. */
export function fleetProgress(log: (line: string) => void): (alive: ReadonlyMap<number, Alive>) => void {
  let last: { atMs: number; published: number; consumed: number } | undefined;
  return (alive) => {
    const now = Date.now();
    if (last && now - last.atMs < 950) return;
    const totals = [...alive.values()].reduce(
      (sum, each) => ({ published: sum.published + each.published, consumed: sum.consumed + each.consumed }),
      {
        published: 0,
        consumed: 0,
      },
    );
    const tS = Math.max(0, ...[...alive.values()].map((each) => each.t_s));
    if (last) {
      const seconds = (now - last.atMs) / 1000;
      log(
        `  ${tS.toFixed(0).padStart(4)}s  published ${Math.round((totals.published - last.published) / seconds)}/s  consumed ${Math.round((totals.consumed - last.consumed) / seconds)}/s  agents reporting ${alive.size}  (total ${totals.published}/${totals.consumed})`,
      );
    }
    last = { atMs: now, ...totals };
  };
}

/** One line per agent, then the fleet's own notes (missing agents, clocks). */
export function fleetTable(fleet: FleetSection): string {
  const header =
    'agent  host                  status     p/c    intended/s  achieved/s  confirm p50/p99 ms   e2e p50/p99 ms  sched. lag p50/p99 ms';
  const rows = fleet.agents.map(
    (row) =>
      `${String(row.agent).padEnd(5)}  ${row.host.slice(0, 20).padEnd(20)}  ${row.status.padEnd(9)}  ${`${row.producers}/${row.consumers}`.padEnd(5)}  ${fmt(row.intended_rate_per_s).padStart(10)}  ${fmt(row.achieved_rate_per_s).padStart(10)}  ${`${fmt(row.confirm_p50_ms)}/${fmt(row.confirm_p99_ms)}`.padStart(18)}  ${`${fmt(row.e2e_p50_ms)}/${fmt(row.e2e_p99_ms)}`.padStart(15)}  ${`${fmt(row.schedule_lag_p50_ms)}/${fmt(row.schedule_lag_p99_ms)}`.padStart(21)}`,
  );
  const missing = fleet.absent.map((each) => `MISSING agent ${each.agent}: ${each.reason}`);
  return [
    `fleet ${fleet.run_id}: ${fleet.agents_merged} of ${fleet.agents_expected} agent(s) merged`,
    header,
    ...rows,
    ...missing,
    fleet.clock_note,
    ...(fleet.start_spread_ms === null ? [] : [`start spread across agents: ${fleet.start_spread_ms} ms (their wall clocks)`]),
  ].join('\n');
}
