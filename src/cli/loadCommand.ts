/**
 * `bench load [FILE] [flags]`: one workload, open loop, with an optional fault schedule. Flags
 * and file fields go through the same resolution (src/load/workload.ts); flags given beside a
 * file override its fields. Output folders are checked before anything runs; bad input exits 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { getConfig, workDir } from '../config';
import { ConfigError, WorkloadFileError } from '../errors';
import { captureEnvironment } from '../environment';
import { checkOutputFolder } from '../preflight/folders';
import { secretsOf } from '../redact';
import { buildRunArchive } from '../results/archive';
import { RAW_RESULT_SCHEMA_VERSION, type RawResult } from '../results/rawResult';
import { recordRun } from '../run/record';
import { parseFaultFlag } from '../load/faultSchedule';
import { loadRawResult, type LoadResult } from '../load/result';
import { runLoad, type LoadRunOptions } from '../load/run';
import { runBarePublishOnce, type BarePublishRun } from '../suite-kit/barePublish';
import { adapterOf } from '../client/registry';
import { findMaxRate, maxRateTable, type MaxRateSummary } from './loadMaxRate';
import { timeSeriesCsv } from '../load/timeseries';
import { resolveWorkload, type LoadWorkload, type WorkloadInput } from '../load/workload';
import { readWorkloadFile, resolveWorkloadFile, schemaProblemOf } from '../load/workloadFile';
import { writeLoadReport } from '../report/loadReport';
import { parseDurationMs } from '../faults/kinds/arguments';
import { FAULT_KIND_NAMES } from '../faults/kinds/registry';

interface LoadFlags {
  readonly producers?: string;
  readonly consumers?: string;
  readonly rate?: string;
  readonly size?: string;
  readonly queues?: string;
  readonly queuePattern?: string;
  readonly queueType?: string;
  readonly prefetch?: string;
  readonly ack?: string;
  readonly confirmWindow?: string;
  readonly duration?: string;
  readonly warmup?: string;
  readonly client?: string;
  readonly name?: string;
  readonly fault: string[];
  readonly output?: string;
  readonly interval: string;
  readonly metricsPort?: string;
  readonly proxy: boolean;
  readonly catchUp: string;
  readonly findMaxRate?: boolean;
  readonly p99Bound?: string;
  readonly compareBare?: boolean;
}

export function registerLoadCommand(program: Command): void {
  program
    .command('load')
    .description('Run one workload open loop (at a set rate, latency from each intended send time), optionally through a fault schedule')
    .argument('[file]', 'a workload file (YAML or JSON, schemas/workload.schema.json); flags override its fields')
    .option('-x, --producers <n>', 'publishing connections (PerfTest -x)', undefined)
    .option('-y, --consumers <n>', 'consuming connections (PerfTest -y)')
    .option('-r, --rate <msg_per_s>', 'total intended publish rate; 0 = as fast as possible (steps or a ramp: in a file) (default 1000)')
    .option('-s, --size <bytes>', 'message size in bytes, or MIN:MAX (uniform); at least 16 (default 256)')
    .option('--queues <n>', 'queues; producers and consumers spread over them round robin (default 1)')
    .option('--queue-pattern <pattern>', 'queue names, %d the queue number from 1 (default bench-load-%d)')
    .option('--queue-type <type>', 'classic | quorum | stream (default classic)')
    .option('-q, --prefetch <n>', 'unacked deliveries per consumer; 0 = unlimited (default 100)')
    .option('--ack <mode>', 'auto | manual (multiple:N and nack:FRACTION are parsed but not supported yet) (default manual)')
    .option('-c, --confirm-window <n>', 'outstanding publisher confirms per producer; 0 = no confirms (default 0)')
    .option('-d, --duration <time>', 'measured time, e.g. 30s (default 30s)')
    .option('--warmup <time>', 'time before the measured part at the same rate, not recorded (default 0s)')
    .option('--client <name[:profile]>', 'the client under test, through its adapter (default amqplib:defaults)')
    .option('--name <name>', "names the result (snake_case) (default load, or the file's name)")
    .option(
      '--fault <kind[:arg]@start+length>',
      `a fault of the fault model, from the start of the run, e.g. latency:200ms@10s+5s, reset_peer@10s+1s (repeatable; kinds: ${FAULT_KIND_NAMES.join(', ')})`,
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('-o, --output <dir>', 'folder for result.json, timeseries.csv, report.md and the chart (default <reports>/load/<name>_<time>)')
    .option('--interval <time>', 'time-series interval', '1s')
    .option('--metrics-port <port>', 'serve the live figures as OpenMetrics on 127.0.0.1:PORT/metrics during the run')
    .option('--no-proxy', 'connect to the broker directly (no network faults then)')
    .option(
      '--find-max-rate',
      'search the highest rate achieved (≥ 99%) with e2e p99 within --p99-bound of the unloaded p99 (one short run per probe: set --duration)',
    )
    .option('--p99-bound <ms>', "with --find-max-rate: how far above the unloaded p99 (100 msg/s) a probe's p99 may be", '10')
    .option(
      '--compare-bare',
      'after the run, the bare amqplib publish script on the same address, same size (use with --rate 0 --consumers 0)',
    )
    .option('--catch-up <time>', 'how long a publisher behind schedule at the end keeps sending', '10s')
    .addHelpText(
      'after',
      `
Open loop: message i is due at start + i/rate; it is sent when due (never skipped) and its confirm
and end-to-end latencies are timed from that intended time, so a stall shows in every message due
during it. Output: result.json, timeseries.csv (one point a second), report.md with a chart, and the
run archived and added to the history under BENCH_REPORTS_DIR like any run.

Examples:
  bench load --rate 5000 --size 256 --duration 60s
  bench load --rate 2000 --duration 30s --fault latency:200ms@10s+5s
  bench load workloads/perftest-like.yaml --duration 10s
Bad input exits 2 with a line saying what to give instead.`,
    )
    .action(async (file: string | undefined, flags: LoadFlags) => {
      process.exitCode = await loadAction(file, flags);
    });
}

/** Flags as workload fields (only those given). @throws ConfigError naming the flag */
export function flagsToInput(flags: LoadFlags): WorkloadInput {
  const integer = (flag: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(flag, 'a whole number ≥ 0', raw);
    return Number(raw);
  };
  const number = (flag: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new ConfigError(flag, 'a number ≥ 0', raw);
    return value;
  };
  const size = flags.size === undefined ? undefined : /^\d+$/.test(flags.size.trim()) ? Number(flags.size) : flags.size;
  const faults = flags.fault.map((text) => {
    const parsed = parseFaultFlag(text);
    if (typeof parsed === 'string') throw new ConfigError('--fault', 'KIND[:ARG]@START+LENGTH (e.g. latency:200ms@10s+5s)', text);
    return parsed;
  });
  const input: Record<string, unknown> = {
    name: flags.name,
    producers: integer('--producers', flags.producers),
    consumers: integer('--consumers', flags.consumers),
    rate: number('--rate', flags.rate),
    size,
    queues: integer('--queues', flags.queues),
    queue_pattern: flags.queuePattern,
    queue_type: flags.queueType,
    prefetch: integer('--prefetch', flags.prefetch),
    ack: flags.ack,
    confirm_window: integer('--confirm-window', flags.confirmWindow),
    duration: flags.duration,
    warmup: flags.warmup,
    client: flags.client,
    faults: faults.length > 0 ? faults : undefined,
  };
  for (const key of Object.keys(input)) if (input[key] === undefined) delete input[key];
  const problem = schemaProblemOf(input);
  if (problem) throw flagError(problem.field, problem.problem, valueAt(input, problem.field));
  return input;
}

function valueAt(input: Record<string, unknown>, field: string): unknown {
  return input[field.split(/[.[]/)[0]!];
}

/** The workload of a file and/or flags. @throws ConfigError | WorkloadFileError */
export function workloadOf(file: string | undefined, flags: LoadFlags): LoadWorkload {
  const overrides = flagsToInput(flags);
  if (file !== undefined) {
    const content = readWorkloadFile(file);
    const named = content.input.name === undefined && overrides.name === undefined ? { name: fileName(file) } : {};
    return resolveWorkloadFile({ ...content, input: { ...named, ...content.input } }, overrides);
  }
  return resolveWorkload(overrides, (field, problem) => {
    throw flagError(field, problem, valueAt(overrides as Record<string, unknown>, field));
  });
}

/** A workload field's problem as the flag's: `--size must be ...; got "100:10"`. */
function flagError(field: string, problem: string, got: unknown): ConfigError {
  const flag = `--${field.split(/[.[]/)[0]!.replace(/_/g, '-')}`;
  return new ConfigError(
    flag,
    problem.startsWith('must be ') ? problem.slice('must be '.length) : `valid (${problem})`,
    typeof got === 'object' ? JSON.stringify(got) : String(got),
  );
}

function fileName(file: string): string {
  return path
    .basename(file)
    .replace(/\.(ya?ml|json)$/i, '')
    .replace(/[^a-z0-9]+/gi, '_')
    .toLowerCase();
}

async function loadAction(file: string | undefined, flags: LoadFlags): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let workload: LoadWorkload;
  let intervalMs: number;
  let catchUpMs: number;
  let metricsPort: number | undefined;
  let p99BoundMs: number;
  try {
    workload = workloadOf(file, flags);
    intervalMs = parseDurationMs(flags.interval, '--interval');
    if (intervalMs < 50) throw new ConfigError('--interval', 'at least 50ms', flags.interval);
    catchUpMs = parseDurationMs(flags.catchUp, '--catch-up');
    p99BoundMs = Number(flags.p99Bound ?? '10');
    if (!Number.isFinite(p99BoundMs) || p99BoundMs < 0)
      throw new ConfigError('--p99-bound', 'a number of milliseconds ≥ 0', flags.p99Bound);
    if (flags.findMaxRate && flags.compareBare)
      throw new ConfigError('--find-max-rate', 'given without --compare-bare (one at a time)', 'both');
    if (flags.metricsPort !== undefined) {
      metricsPort = Number(flags.metricsPort);
      if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)
        throw new ConfigError('--metrics-port', 'a port from 0 to 65535 (0 = any free port)', flags.metricsPort);
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof WorkloadFileError) {
      process.stderr.write(`bench load: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const config = getConfig();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  const outDir = flags.output ? path.resolve(workDir(), flags.output) : path.join(config.reportsDir, 'load', `${workload.name}_${stamp}`);
  try {
    checkOutputFolder({ path: outDir, setting: '-o/--output' });
    checkOutputFolder({ path: config.reportsDir, setting: 'BENCH_REPORTS_DIR' });
  } catch (error) {
    process.stderr.write(`bench load: ${(error as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  const onSignal = () => {
    log('bench load: interrupted; stopping the publishers, closing everything');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let lastPrintMs = 0;
  let result: LoadResult;
  const extras: Record<string, unknown> = {};
  const measure = (each: LoadWorkload, alongside?: LoadRunOptions['alongside']) => {
    lastPrintMs = 0;
    log(`bench load: ${describeWorkload(each)}`);
    return runLoad({
      workload: each,
      config,
      viaProxy: flags.proxy,
      intervalMs,
      metricsPort,
      catchUpMs,
      drainMs: 15_000,
      signal: controller.signal,
      log,
      alongside,
      onMetrics: (url) => log(`bench load: live metrics at ${url}`),
      onPoint: (point, recorder) => {
        if (point.t_s * 1000 - lastPrintMs < 900) return;
        lastPrintMs = point.t_s * 1000;
        const perSecond = (count: number) => Math.round((count * 1000) / intervalMs);
        log(
          `  ${point.t_s.toFixed(0).padStart(4)}s  published ${perSecond(point.published)}/s  consumed ${perSecond(point.consumed)}/s  lag p99 ${fmt(point.schedule_lag_p99_ms)} ms  e2e p99 ${fmt(point.e2e_p99_ms)} ms  outstanding ${point.outstanding_confirms}  up ${point.connections_up}  fault ${point.fault_state}  (total ${recorder.totals.published}/${recorder.totals.consumed})`,
        );
      },
    });
  };
  try {
    if (flags.findMaxRate) {
      const search = await findMaxRate(workload, p99BoundMs, measure, log);
      extras.find_max_rate = search.summary;
      result = search.best;
    } else if (flags.compareBare) {
      result = await measure(workload, async (url, recorder) => {
        const spec = { name: workload.client.name, profile: workload.client.profile };
        const messages = Math.max(20_000, recorder.publishedMeasured);
        log(`bench load: the bare amqplib publish script, ${messages} messages of ${bareSizeBytes(workload)} B on the same address`);
        const bare = await runBarePublishOnce(url, {
          messages,
          messageSizeBytes: bareSizeBytes(workload),
          warmupMessages: Math.min(messages, 20_000),
          libraryOptions: adapterOf(spec).bareOptions?.(spec.profile) ?? {},
        });
        extras.bare_publish = bare;
      });
      const bare = extras.bare_publish as BarePublishRun | undefined;
      if (bare) extras.harness_to_bare_ratio = Math.round((result.achieved_rate_per_s / bare.msgs_per_sec) * 1000) / 1000;
    } else {
      result = await measure(workload);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`bench load: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'result.json'), `${JSON.stringify({ ...result, ...extras }, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'timeseries.csv'), timeSeriesCsv(result.timeseries));
  await writeLoadReport(result, outDir);
  const environment = await captureEnvironment({ amqpUrl: config.amqpUrl });
  const raw: RawResult = {
    schema_version: RAW_RESULT_SCHEMA_VERSION,
    test_id: `bench load::${workload.name}`,
    timestamp: new Date().toISOString(),
    fingerprint: environment.fingerprint,
    ...loadRawResult(result),
  };
  const recorded = await recordRun(
    buildRunArchive({
      environment,
      startedAt,
      finishedAt: new Date(),
      markerExpression: null,
      testNameFilter: null,
      invokedBy: 'cli',
      jestExitCode: null,
      interrupted: result.aborted,
      tests: [],
      suiteErrors: [],
      results: [raw],
      invalidResultFiles: [],
      warnings: [],
    }),
    {
      reportsDir: config.reportsDir,
      thresholdPercent: null,
      secrets: secretsOf(config.amqpUrl),
      warnings: [],
      warn: (line) => log(`bench load: warning: ${line}`),
    },
  );
  process.stdout.write(`${summaryTable(result)}\n`);
  if (extras.find_max_rate) process.stdout.write(`${maxRateTable(extras.find_max_rate as MaxRateSummary)}\n`);
  if (extras.bare_publish) {
    const bare = extras.bare_publish as BarePublishRun;
    process.stdout.write(
      `open loop vs bare: ${result.achieved_rate_per_s} msg/s vs ${Math.round(bare.msgs_per_sec * 10) / 10} msg/s (bare amqplib script, ${bare.messages} messages): ratio ${String(extras.harness_to_bare_ratio)}\n`,
    );
  }
  process.stdout.write(
    `\nresult: ${path.join(outDir, 'result.json')}\ntime series: ${path.join(outDir, 'timeseries.csv')}\nreport: ${path.join(outDir, 'report.md')}\narchive: ${recorded.archivePath}\n`,
  );
  return result.aborted ? 1 : 0;
}

function describeWorkload(workload: LoadWorkload): string {
  const rate =
    workload.rate.kind === 'constant'
      ? workload.rate.perSecond === 0
        ? 'max rate'
        : `${workload.rate.perSecond} msg/s`
      : `${workload.rate.kind} rate`;
  const faults = workload.faults.map((fault) => `${fault.text}@${fault.atMs / 1000}s+${fault.lengthMs / 1000}s`).join(', ');
  return `${workload.name}: ${workload.producers}p/${workload.consumers}c, ${rate}, ${workload.queues} ${workload.queueType} queue(s), ${workload.durationMs / 1000}s${workload.warmupMs > 0 ? ` after ${workload.warmupMs / 1000}s warm-up` : ''}, client ${workload.client.name}:${workload.client.profile}${faults ? `, faults ${faults}` : ''}`;
}

function fmt(value: number | null): string {
  return value === null ? '-' : value.toFixed(value < 10 ? 2 : 0);
}

/** The end-of-run table (plain text, aligned). */
export function summaryTable(result: LoadResult): string {
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
      `injected ${fault.injectedAtMs ?? '-'} ms, removed ${fault.removedAtMs ?? '-'} ms${fault.error ? `, ${fault.error}` : ''}`,
    ]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}

/** The size the bare script publishes: the workload's, or the least of its range (the script has one size). */
function bareSizeBytes(workload: LoadWorkload): number {
  return workload.size.kind === 'fixed' ? workload.size.bytes : workload.size.minBytes;
}
