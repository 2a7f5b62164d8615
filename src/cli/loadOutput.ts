/**
 * What a finished `bench load` leaves, whoever ran it (one process, a fleet's coordinator,
 * `bench load-merge`): result.json, timeseries.csv, report.md with its chart, and the run recorded
 * (archive, history, report) like any run; plus the end-of-run table on stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { captureEnvironment } from '../environment';
import { secretsOf } from '../redact';
import { buildRunArchive } from '../results/archive';
import { RAW_RESULT_SCHEMA_VERSION, type RawResult } from '../results/rawResult';
import { recordRun } from '../run/record';
import { faultTimingNote } from '../load/faultSchedule';
import { loadRawResult, type LoadResult } from '../load/result';
import { latenessOfRun } from '../load/lateness';
import { timeSeriesCsv } from '../load/timeseries';
import type { LoadWorkload } from '../load/workload';
import type { BarePublishRun } from '../suite-kit/barePublish';
import type { FleetSection } from '../fleet/merge';
import { writeLoadReport } from '../report/loadReport';
import type { MaxRateSummary } from './loadMaxRate';

/** What a run adds beside its result in result.json. */
export interface LoadExtras {
  readonly find_max_rate?: MaxRateSummary;
  readonly bare_publish?: BarePublishRun;
  readonly harness_to_bare_ratio?: number;
}

export type LoadOutcome = LoadResult & LoadExtras & { readonly fleet?: FleetSection };

export interface RecordLoadOptions {
  readonly outDir: string;
  readonly startedAt: Date;
  readonly amqpUrl: string;
  readonly reportsDir: string;
  readonly log: (line: string) => void;
}

/** Writes the run's files and records it; resolves with where the archive went. */
export async function writeAndRecordLoad(outcome: LoadOutcome, options: RecordLoadOptions): Promise<{ readonly archivePath: string }> {
  const { outDir } = options;
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'result.json'), `${JSON.stringify(outcome, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'timeseries.csv'), timeSeriesCsv(outcome.timeseries));
  await writeLoadReport(outcome, outDir);
  const environment = await captureEnvironment({ amqpUrl: options.amqpUrl });
  const draft = loadRawResult(outcome);
  const raw: RawResult = {
    schema_version: RAW_RESULT_SCHEMA_VERSION,
    test_id: `bench load::${outcome.workload.name}`,
    timestamp: new Date().toISOString(),
    fingerprint: environment.fingerprint,
    ...draft,
    ...(outcome.fleet
      ? {
          parameters: { ...draft.parameters, agents: outcome.fleet.agents_expected },
          details: { ...draft.details, fleet: outcome.fleet },
        }
      : {}),
  };
  const recorded = await recordRun(
    buildRunArchive({
      environment,
      startedAt: options.startedAt,
      finishedAt: new Date(),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: null,
      interrupted: outcome.aborted,
      tests: [],
      suiteErrors: [],
      results: [raw],
      invalidResultFiles: [],
      warnings: [],
    }),
    {
      reportsDir: options.reportsDir,
      thresholdPercent: null,
      secrets: secretsOf(options.amqpUrl),
      warnings: [],
      warn: (line) => options.log(`bench load: warning: ${line}`),
    },
  );
  return { archivePath: recorded.archivePath };
}

/** Where the files are, for the last lines on stdout. */
export function whereLines(outDir: string, archivePath: string): string {
  return `\nresult: ${path.join(outDir, 'result.json')}\ntime series: ${path.join(outDir, 'timeseries.csv')}\nreport: ${path.join(outDir, 'report.md')}\narchive: ${archivePath}\n`;
}

/** The output folder: the one asked for, or `<reports>/<kind>/<name>_<time>` (kind: load, herd). */
export function outputFolder(
  asked: string | undefined,
  base: string,
  reportsDir: string,
  name: string,
  startedAt: Date,
  kind = 'load',
): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return asked ? path.resolve(base, asked) : path.join(reportsDir, kind, `${name}_${stamp}`);
}

export function describeWorkload(workload: LoadWorkload): string {
  const rate =
    workload.rate.kind === 'constant'
      ? workload.rate.perSecond === 0
        ? 'max rate'
        : `${workload.rate.perSecond} msg/s`
      : `${workload.rate.kind} rate`;
  const faults = workload.faults.map((fault) => `${fault.text}@${fault.atMs / 1000}s+${fault.lengthMs / 1000}s`).join(', ');
  return `${workload.name}: ${workload.producers}p/${workload.consumers}c, ${rate}, ${workload.queues} ${workload.queueType} queue(s), ${workload.durationMs / 1000}s${workload.warmupMs > 0 ? ` after ${workload.warmupMs / 1000}s warm-up` : ''}, client ${workload.client.name}:${workload.client.profile}${faults ? `, faults ${faults}` : ''}`;
}

export function fmt(value: number | null): string {
  return value === null ? '-' : value.toFixed(value < 10 ? 2 : 0);
}

/** A fault's timing note in the table's words (`; in place only after publishing ended ...`), or nothing. */
const lateness = (fault: LoadResult['faults'][number], publishingEndedMs: number): string =>
  (faultTimingNote(fault, publishingEndedMs) ?? '').replace(/^fault [^:]*:/, ';');

/** The end-of-run table (plain text, aligned). */
export function summaryTable(result: LoadResult & { readonly fleet?: Pick<FleetSection, 'lateness_note'> }): string {
  const m = result.messages;
  const rows: [string, string][] = [
    ['intended rate', result.intended_rate_per_s === null ? 'as fast as possible' : `${result.intended_rate_per_s} msg/s`],
    [
      'achieved rate',
      `${result.achieved_rate_per_s} msg/s${result.achieved_fraction === null ? '' : ` (${(result.achieved_fraction * 100).toFixed(2)}%)`}`,
    ],
    [
      'messages',
      `published ${m.published}, confirmed ${m.confirmed}, consumed ${m.consumed_unique} (+${m.duplicates} dup), failed ${m.publish_failed}, unsent ${m.unsent}, lost (confirmed) ${m.lost_confirmed ?? 'n/a'}`,
    ],
  ];
  const latency = (label: string, figures: LoadResult['latency_ms']['end_to_end']) =>
    rows.push([
      label,
      figures.count === 0
        ? 'no samples'
        : `p50 ${fmt(figures.p50)}  p90 ${fmt(figures.p90)}  p99 ${fmt(figures.p99)}  p99.9 ${fmt(figures.p99_9)}  p99.99 ${fmt(figures.p99_99)}  max ${fmt(figures.max)} ms  (n=${figures.count})`,
    ]);
  latency('end-to-end', result.latency_ms.end_to_end);
  latency('confirm', result.latency_ms.confirm);
  latency('schedule lag', result.latency_ms.schedule_lag);
  for (const fault of result.faults)
    rows.push([
      `fault ${fault.text}`,
      `injected ${fault.injectedAtMs ?? '-'} ms, removed ${fault.removedAtMs ?? '-'} ms${fault.error ? `, ${fault.error}` : ''}${lateness(fault, result.publishing_ended_ms)}`,
    ]);
  const width = Math.max(...rows.map(([label]) => label.length));
  // Beside the figures, so they are never read without what the senders' own lateness put in them.
  const late = result.fleet ? result.fleet.lateness_note : latenessOfRun(result);
  return [...rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`), ...(late ? [`LATE SENDING: ${late}`] : [])].join('\n');
}
