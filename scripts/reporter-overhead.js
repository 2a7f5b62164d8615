#!/usr/bin/env node
/**
 * What the benchmark reporter (reporters/benchmarkReporter.ts) costs per finished test, and
 * whether that grows with the run: a synthetic run fed to the reporter's real code, with real raw
 * result files in a temp folder, timed per hook call. Jest itself is not involved: the hooks are
 * called as Jest calls them (a test's raw result is on disk before its onTestCaseResult).
 *
 * Usage:
 *   node scripts/reporter-overhead.js [--results 200] [--per-file 10] [--repeats 5] [--at 10,50,100,200] [--own-writer] [--json]
 *
 * Results are written through writeRawResult, as recordResult() writes them; --own-writer writes
 * the JSON files directly instead (as a benchmark that bypasses recordResult does, which the
 * reporter finds by listing the folder).
 *
 * Output: for each result number in --at, the median over the repeats (each a fresh folder and a
 * fresh reporter, after one run not counted, which warms the code up) of onTestCaseResult's time at that result, and of onTestFileResult's time for
 * the file that result ends (a file ends every --per-file results); then the end of the run
 * (onRunComplete, junit.xml and the pipeline off). Flat figures down a column mean the per-test
 * work does not grow with the run. Numbers only, nothing asserted: it runs on whatever else the
 * machine is doing.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

// The reporter runs the end of the run's pipeline only when no run script owns it.
process.env.BENCH_PIPELINE_OWNER = 'cli';
require('../lib/register');
const Reporter = require('../reporters/benchmarkReporter.ts').default;
const { writeRawResult } = require('../src/results/rawResult.ts');
const { median } = require('../src/measure/statistics.ts');

function parseArgs(argv) {
  const options = { results: 200, perFile: 10, repeats: 5, at: [10, 50, 100, 150, 200], json: false, ownWriter: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--json' || arg === '--own-writer') {
      options[arg === '--json' ? 'json' : 'ownWriter'] = true;
      continue;
    }
    const value = argv[(i += 1)];
    if (value === undefined) throw new Error(`${arg} needs a value`);
    if (arg === '--results') options.results = Number(value);
    else if (arg === '--per-file') options.perFile = Number(value);
    else if (arg === '--repeats') options.repeats = Number(value);
    else if (arg === '--at') options.at = value.split(',').map(Number);
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.repeats < 1 || options.results < 1 || options.perFile < 1)
    throw new Error('--results, --per-file and --repeats must be at least 1');
  options.at = options.at.filter((at) => at >= 1 && at <= options.results);
  return options;
}

/** A raw result shaped like a throughput suite's (seven metrics, samples and replicates: a few kB). */
function syntheticResult(testId, index) {
  const rate = 50_000 + index;
  const metric = (value, unit, direction) => ({ value, unit, direction });
  const rounds = Array.from({ length: 50 }, (_, round) => rate * (1 + 0.02 * Math.sin(round)));
  return {
    schema_version: 1,
    category: 'throughput',
    name: 'publish_throughput',
    test_id: testId,
    timestamp: new Date().toISOString(),
    fingerprint: 'abcd1234',
    parameters: { threads: 10, messages_per_thread: 1000, message_size_bytes: 256, publish_mode: 'plain' },
    metrics: {
      throughput_msgs_per_sec: metric(rate, 'msg/s', 'higher'),
      throughput_mb_per_sec: metric((rate * 256) / 1e6, 'MB/s', 'higher'),
      publish_latency_p50_ms: metric(0.4, 'ms', 'lower'),
      publish_latency_p95_ms: metric(1.1, 'ms', 'lower'),
      publish_latency_p99_ms: metric(2.3, 'ms', 'lower'),
      publish_latency_max_ms: metric(9, 'ms', 'lower'),
      errors: metric(0, 'count', 'lower'),
    },
    samples: { throughput_msgs_per_sec: rounds },
    replicates: { throughput_msgs_per_sec: rounds },
  };
}

function timed(action) {
  const startMs = performance.now();
  action();
  return performance.now() - startMs;
}

/** One synthetic run: returns { caseMs[i], fileMs[i] (at the file's last result, else undefined), endMs, progressLines }. */
async function oneRun(options) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-reporter-overhead-'));
  const rawDir = path.join(root, 'raw');
  fs.mkdirSync(rawDir);
  const write = process.stderr.write;
  const lines = [];
  process.stderr.write = (chunk) => lines.push(String(chunk)) > 0;
  try {
    const reporter = new Reporter({ rootDir: root }, { rawResultsDir: rawDir, reportsDir: path.join(root, 'out'), junit: false });
    const caseMs = [];
    const fileMs = [];
    let cases = [];
    let test;
    for (let index = 1; index <= options.results; index += 1) {
      const fileNumber = Math.ceil(index / options.perFile);
      if ((index - 1) % options.perFile === 0) {
        const filePath = path.join(root, 'benchmarks', `bench_synthetic_${fileNumber}.bench.ts`);
        test = { path: filePath, context: { config: { displayName: { name: 'benchmark', color: 'white' } } } };
        cases = [];
        reporter.onTestFileStart(test);
      }
      const title = `test_publish_throughput[${index}]`;
      const result = syntheticResult(`benchmarks/bench_synthetic_${fileNumber}.bench.ts::TestSynthetic::${title}`, index);
      if (options.ownWriter) fs.writeFileSync(path.join(rawDir, `publish_throughput_own_${index}.json`), JSON.stringify(result));
      else writeRawResult(result, rawDir);
      const testCase = {
        ancestorTitles: ['TestSynthetic'],
        title,
        fullName: `TestSynthetic ${title}`,
        status: 'passed',
        failureMessages: [],
        duration: 1000,
        startAt: Date.now() - 1000,
      };
      cases.push(testCase);
      caseMs[index] = timed(() => reporter.onTestCaseResult(test, testCase));
      if (index % options.perFile === 0 || index === options.results)
        fileMs[index] = timed(() => reporter.onTestFileResult(test, { testResults: cases, failureMessage: null }));
    }
    const endStartMs = performance.now();
    await reporter.onRunComplete(new Set(), {
      testResults: [{ displayName: { name: 'benchmark' } }],
      startTime: Date.now(),
      wasInterrupted: false,
    });
    const endMs = performance.now() - endStartMs;
    return { caseMs, fileMs, endMs, progressLines: lines.filter((line) => line.includes('publish_throughput: ')).length };
  } finally {
    process.stderr.write = write;
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // One run first, not counted: at result 10 of the first run the code is not compiled yet.
  await oneRun(options);
  const runs = [];
  for (let repeat = 0; repeat < options.repeats; repeat += 1) runs.push(await oneRun(options));
  const lost = runs.find((run) => run.progressLines !== options.results);
  if (lost) throw new Error(`the reporter printed ${lost.progressLines} progress line(s) with a figure for ${options.results} results`);
  const medianOf = (values) => (values.some((value) => value === undefined) ? null : median(values));
  const rows = options.at.map((at) => ({
    result: at,
    test_case_ms: medianOf(runs.map((run) => run.caseMs[at])),
    test_file_ms: medianOf(runs.map((run) => run.fileMs[at])),
  }));
  const summary = {
    writer: options.ownWriter ? 'own' : 'writeRawResult',
    results: options.results,
    per_file: options.perFile,
    repeats: options.repeats,
    rows,
    run_complete_ms: median(runs.map((run) => run.endMs)),
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const ms = (value) => (value === null ? '-' : value.toFixed(3));
  process.stdout.write(
    `reporter work, median of ${options.repeats} synthetic runs of ${options.results} results (${options.perFile} per file, written by ${summary.writer}), ms\n`,
  );
  process.stdout.write('result  onTestCaseResult  onTestFileResult\n');
  for (const row of rows)
    process.stdout.write(`${String(row.result).padStart(6)}  ${ms(row.test_case_ms).padStart(16)}  ${ms(row.test_file_ms).padStart(16)}\n`);
  process.stdout.write(`end of run (onRunComplete, no junit.xml, no pipeline): ${ms(summary.run_complete_ms)} ms\n`);
}

main().catch((error) => {
  process.stderr.write(`reporter-overhead: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
