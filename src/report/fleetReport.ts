/**
 * The fleet section of a load report (pure): one row per agent, what the fleet lacks (every
 * agent without a merged result, and why), and how its latencies relate to its clocks.
 */
import type { FleetSection } from '../fleet/merge';
import { figureCell as cell } from './markdown';

export function fleetSectionMarkdown(fleet: FleetSection): string {
  const lines = [
    `### Fleet: ${fleet.agents_merged} of ${fleet.agents_expected} agent(s) merged (run ${fleet.run_id})`,
    '',
    ...(fleet.absent.length > 0
      ? [
          `**Missing** — the figures above lack these agents' shares:`,
          '',
          ...fleet.absent.map((each) => `- agent ${each.agent}: ${each.reason}`),
          '',
        ]
      : []),
    `Clocks: ${fleet.clock_note}.${fleet.start_spread_ms === null ? '' : ` Start spread across agents: ${fleet.start_spread_ms} ms by their wall clocks.`}`,
    '',
    '| agent | host | status | producers/consumers | intended msg/s | achieved msg/s | confirm p50 / p99 ms | e2e p50 / p99 ms | schedule lag p50 / p99 ms | connection faults |',
    '|---:|---|---|---|---:|---:|---:|---:|---:|---:|',
    ...fleet.agents.map(
      (row) =>
        `| ${row.agent} | ${row.host} | ${row.status}${row.error ? ` (${row.error})` : ''} | ${row.producers}/${row.consumers} | ${cell(row.intended_rate_per_s)} | ${cell(row.achieved_rate_per_s)} | ${cell(row.confirm_p50_ms)} / ${cell(row.confirm_p99_ms)} | ${cell(row.e2e_p50_ms)} / ${cell(row.e2e_p99_ms)} | ${cell(row.schedule_lag_p50_ms)} / ${cell(row.schedule_lag_p99_ms)} | ${row.connection_faults} |`,
    ),
    '',
    'Merged: latency histograms added (never percentiles averaged), counts summed, each message accounted once by its sequence number across agents, the time series summed point by point. An agent row shows end-to-end figures only where that agent timed them on one clock.',
    '',
  ];
  return lines.join('\n');
}
