/**
 * `bench load [FILE] [flags]`: one workload, open loop, with an optional fault schedule — in this
 * process, or as a fleet of agents (--agents N; loadFleet.ts). Flags and file fields go through
 * the same resolution (loadFlags.ts); flags given beside a file override its fields. Output
 * folders are checked before anything runs; bad input exits 2.
 */
import type { Command } from 'commander';
import { getConfig, workDir, type BenchConfig } from '../config';
import { ConfigError, WorkloadFileError } from '../errors';
import { checkOutputFolder } from '../preflight/folders';
import { adapterOf } from '../client/registry';
import { runLoad } from '../load/run';
import type { LoadResult } from '../load/result';
import type { TimeSeriesPoint } from '../load/timeseries';
import type { LoadRecorder } from '../load/recorder';
import type { LoadWorkload } from '../load/workload';
import { bareClientOf, bareProgramOf, runBarePublishOnce } from '../suite-kit/barePublish';
import { FAULT_KIND_NAMES } from '../faults/kinds/registry';
import { resolveLoadOptions, type LoadCliOptions, type LoadFlags } from './loadFlags';
import { runFleetPart } from './loadFleet';
import { findMaxRate, maxRateTable } from './loadMaxRate';
import { describeWorkload, fmt, outputFolder, summaryTable, whereLines, writeAndRecordLoad, type LoadExtras } from './loadOutput';

export { flagsToInput, workloadOf } from './loadFlags';
export { summaryTable } from './loadOutput';

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerLoadCommand(program: Command): void {
  const command = program
    .command('load')
    .description(
      'Run one workload open loop (at a set rate, latency from each intended send time), optionally through a fault schedule, in this process or as a fleet of agents',
    )
    .argument(
      '[file]',
      'a workload file (YAML or JSON, schemas/workload.schema.json), or env:NAME to read it from a variable; flags override its fields',
    );
  fleetFlags(runFlags(workloadFlags(command)))
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
  bench load -x 4 -y 4 --queues 4 --rate 5000 --agents 4          four agent processes, merged
  bench load -x 8 -y 8 --queues 8 --rate 20000 --agents 8 --emit-k8s fleet.yaml
Bad input exits 2 with a line saying what to give instead.`,
    )
    .action(async (file: string | undefined, flags: LoadFlags) => {
      process.exitCode = await loadAction(file, flags);
    });
}

/** What the workload is: connections, rate, sizes, queues, acks, the client and the fault schedule. */
function workloadFlags(command: Command): Command {
  return command
    .option('-x, --producers <n>', 'publishing connections (PerfTest -x)', undefined)
    .option('-y, --consumers <n>', 'consuming connections (PerfTest -y)')
    .option('-r, --rate <msg_per_s>', 'total intended publish rate; 0 = as fast as possible (steps or a ramp: in a file) (default 1000)')
    .option('-s, --size <bytes>', 'message size in bytes, or MIN:MAX (uniform); at least 16 (default 256)')
    .option('--queues <n>', 'queues; producers and consumers spread over them round robin (default 1)')
    .option('--queue-pattern <pattern>', 'queue names, %d the queue number from 1 (default bench-load-%d)')
    .option('--queue-type <type>', 'classic | quorum | stream (default classic)')
    .option('-q, --prefetch <n>', 'unacked deliveries per consumer; 0 = unlimited (default 100)')
    .option(
      '--ack <mode>',
      "auto | manual | multiple:N (an ack of all so far every N deliveries) | nack:FRACTION (that share nacked and requeued), as the client's adapter allows (default manual)",
    )
    .option('-c, --confirm-window <n>', 'outstanding publisher confirms per producer; 0 = no confirms (default 0)')
    .option('-d, --duration <time>', 'measured time, e.g. 30s (default 30s)')
    .option('--warmup <time>', 'time before the measured part at the same rate, not recorded (default 0s)')
    .option('--client <name[:profile]>', 'the client under test, through its adapter (default amqplib:defaults)')
    .option('--name <name>', "names the result (snake_case) (default load, or the file's name)")
    .option(
      '--fault <kind[:arg]@start+length>',
      `a fault of the fault model, from the start of the run, e.g. latency:200ms@10s+5s, reset_peer@10s+1s (repeatable; kinds: ${FAULT_KIND_NAMES.join(', ')})`,
      collect,
      [] as string[],
    );
}

/** Where the run goes and what it does besides: output, interval, metrics, proxy, the max-rate search, the bare comparison. */
function runFlags(command: Command): Command {
  return command
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
      "after the run, the bare publish script of the workload's client library on the same address, same size (use with --rate 0 --consumers 0)",
    )
    .option('--catch-up <time>', 'how long a publisher behind schedule at the end keeps sending', '10s');
}

/** A fleet of agents: here, elsewhere with a coordinator, or as Kubernetes manifests. */
function fleetFlags(command: Command): Command {
  return command
    .option(
      '--agents <n>',
      'run the workload as N agents, each its own process and connections, taking its share by index; alone: N processes on this machine and their coordinator (docs/guide/fleet.md)',
    )
    .option(
      '--agent [index]',
      'be one agent of --agents N (the index from JOB_COMPLETION_INDEX when not given, as a Kubernetes Indexed Job sets it)',
    )
    .option('--coordinate', 'be the coordinator of --agents N started elsewhere: the start barrier through the broker, the merge')
    .option('--run-id <id>', 'the fleet run every agent and the coordinator share (a new one for --agents alone and --emit-k8s)')
    .option(
      '--barrier-timeout <time>',
      'how long the coordinator waits for every agent to be ready (default 60s here, 10m for --coordinate and --emit-k8s)',
    )
    .option(
      '--start-at <time>',
      'with --agent and no coordinator (agents that share no broker, a CI matrix): start at this wall-clock time (ISO 8601)',
    )
    .option(
      '--emit-k8s <file>',
      'write the Kubernetes manifests of --agents N (an Indexed Job of agents and a coordinator Job) instead of running',
    )
    .option('--k8s-image <image>', 'with --emit-k8s: an image with amqp-bench installed (default amqp-bench:<version>)')
    .option('--k8s-secret <name>', "with --emit-k8s: the Secret holding the broker's URL under the key url (default amqp-bench-broker)")
    .option('--linger <time>', 'the coordinator keeps running this long after writing its results (for kubectl cp)');
}

async function loadAction(file: string | undefined, flags: LoadFlags): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let options: LoadCliOptions;
  try {
    options = resolveLoadOptions(file, flags);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof WorkloadFileError) {
      process.stderr.write(`bench load: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const config = getConfig();
  const startedAt = new Date();
  const outDir = outputFolder(flags.output, workDir(), config.reportsDir, options.workload.name, startedAt);
  try {
    if (options.fleet.kind !== 'emit-k8s') {
      checkOutputFolder({ path: outDir, setting: '-o/--output' });
      checkOutputFolder({ path: config.reportsDir, setting: 'BENCH_REPORTS_DIR' });
    }
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
  try {
    if (options.fleet.kind !== 'alone') return await runFleetPart({ options, flags, config, signal: controller.signal, log });
    const measured = await measureAlone(options, flags, config, controller.signal, log);
    if (typeof measured === 'number') return measured;
    const { result, extras } = measured;
    const { archivePath } = await writeAndRecordLoad(
      { ...result, ...extras },
      { outDir, startedAt, amqpUrl: config.amqpUrl, reportsDir: config.reportsDir, log },
    );
    process.stdout.write(`${summaryTable(result)}\n`);
    if (extras.find_max_rate) process.stdout.write(`${maxRateTable(extras.find_max_rate)}\n`);
    if (extras.bare_publish)
      process.stdout.write(
        `open loop vs bare: ${result.achieved_rate_per_s} msg/s vs ${Math.round(extras.bare_publish.msgs_per_sec * 10) / 10} msg/s (bare ${bareClientOf(options.workload.client)} script, ${extras.bare_publish.messages} messages): ratio ${String(extras.harness_to_bare_ratio)}\n`,
      );
    process.stdout.write(whereLines(outDir, archivePath));
    return result.aborted ? 1 : 0;
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
}

/** The workload in this process: once, or the max-rate search, or once and the bare script. */
async function measureAlone(
  options: LoadCliOptions,
  flags: LoadFlags,
  config: BenchConfig,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<{ result: LoadResult; extras: LoadExtras }> {
  let lastPrintMs = 0;
  const measure = (each: LoadWorkload, alongside?: (url: string, recorder: LoadRecorder) => Promise<void>) => {
    lastPrintMs = 0;
    log(`bench load: ${describeWorkload(each)}`);
    return runLoad({
      workload: each,
      config,
      viaProxy: flags.proxy,
      intervalMs: options.intervalMs,
      metricsPort: options.metricsPort,
      catchUpMs: options.catchUpMs,
      drainMs: 15_000,
      signal,
      log,
      alongside,
      onMetrics: (url) => log(`bench load: live metrics at ${url}`),
      onPoint: (point, recorder) => {
        if (point.t_s * 1000 - lastPrintMs < 900) return;
        lastPrintMs = point.t_s * 1000;
        log(progressLine(point, recorder, options.intervalMs));
      },
    });
  };
  const { workload } = options;
  if (flags.findMaxRate) {
    const search = await findMaxRate(workload, options.p99BoundMs, measure, log);
    return { result: search.best, extras: { find_max_rate: search.summary } };
  }
  if (!flags.compareBare) return { result: await measure(workload), extras: {} };
  let bare: LoadExtras['bare_publish'];
  const result = await measure(workload, async (url, recorder) => {
    const spec = { name: workload.client.name, profile: workload.client.profile };
    const messages = Math.max(20_000, recorder.publishedMeasured);
    const sizeBytes = workload.size.kind === 'fixed' ? workload.size.bytes : workload.size.minBytes; // the script has one size
    log(`bench load: the bare ${bareClientOf(spec)} publish script, ${messages} messages of ${sizeBytes} B on the same address`);
    bare = await runBarePublishOnce(url, {
      messages,
      messageSizeBytes: sizeBytes,
      warmupMessages: Math.min(messages, 20_000),
      libraryOptions: adapterOf(spec).bareOptions?.(spec.profile) ?? {},
      library: bareClientOf(spec),
      program: bareProgramOf(spec),
    });
  });
  if (!bare) return { result, extras: {} };
  return {
    result,
    extras: { bare_publish: bare, harness_to_bare_ratio: Math.round((result.achieved_rate_per_s / bare.msgs_per_sec) * 1000) / 1000 },
  };
}

function progressLine(point: TimeSeriesPoint, recorder: LoadRecorder, intervalMs: number): string {
  const perSecond = (count: number) => Math.round((count * 1000) / intervalMs);
  return `  ${point.t_s.toFixed(0).padStart(4)}s  published ${perSecond(point.published)}/s  consumed ${perSecond(point.consumed)}/s  lag p99 ${fmt(point.schedule_lag_p99_ms)} ms  e2e p99 ${fmt(point.e2e_p99_ms)} ms  outstanding ${point.outstanding_confirms}  up ${point.connections_up}  fault ${point.fault_state}  (total ${recorder.totals.published}/${recorder.totals.consumed})`;
}
