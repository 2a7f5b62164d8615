/**
 * Generated from schemas/run-archive.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { Direction, RawResult, ResultParameters } from './rawResult';

/**
 * `passed`: every test that ran passed; `failed`: a test or a suite failed, or Jest failed; `interrupted`: stopped before the end (Ctrl-C), and saved itself; `killed`: stopped without a word (SIGKILL, a cancelled CI job), and archived by the next run from what it left.
 */
export type RunStatus = 'passed' | 'failed' | 'interrupted' | 'killed';
/**
 * What Jest said of a test; any status Jest has besides these (pending, disabled, focused away) is `skipped`.
 */
export type TestStatus = 'passed' | 'failed' | 'skipped' | 'todo';

/**
 * Everything one run produced: reports/benchmarks/run_<YYYYmmdd_HHMMSS>_<fingerprint>[_<n>].json (UTC start time; _<n> only when two runs start in the same second). Never overwritten (src/results/archive.ts).
 */
export interface RunArchive {
  schema_version: 1;
  /**
   * `run_<YYYYmmdd_HHMMSS>_<fingerprint>[_<n>]`, the archive's file name without `.json`.
   */
  run_id: string;
  status: RunStatus;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /**
   * Marker expression the benchmarks were selected with; null = all.
   */
  marker_expression: string | null;
  /**
   * Jest `-t` test-name filter; null = none.
   */
  test_name_filter: string | null;
  /**
   * Who ran the pipeline: the run script (`bench run`, `bench merge`), or the Jest reporter on a plain `jest` run.
   */
  invoked_by: 'cli' | 'jest-reporter';
  /**
   * Jest's exit code (null when Jest was ended by a signal or never exited through us).
   */
  jest_exit_code: number | null;
  environment: EnvironmentRecord;
  counts: TestCounts;
  /**
   * Every benchmark test Jest reported on, from the reporter's outcome file.
   */
  tests: TestOutcome[];
  suite_errors: SuiteError[];
  /**
   * Every raw result the run wrote that follows its schema, oldest first.
   */
  results: RawResult[];
  /**
   * The figures a reader looks for first, picked out of `results` (src/results/keyMetrics.ts).
   */
  key_metrics: KeyMetric[];
  invalid_result_files: InvalidResultFile[];
  /**
   * What the pipeline noticed about the run and said (no test outcome, results of another fingerprint, shards missing, ...).
   */
  warnings: string[];
  /**
   * Present on a run merged from shards (`bench merge`): each shard (`i/n`), the folder it came from, its times and Jest exit code, and how many tests and raw results it brought.
   */
  shards?: ShardSummary[];
}
/**
 * The environment a run was measured in (src/environment.ts captureEnvironment): what the fingerprint is computed from, the machine, the libraries, the broker and the fault proxy.
 */
export interface EnvironmentRecord {
  schema_version: number;
  /**
   * Full commit hash, or `unknown` outside a git checkout.
   */
  git_commit: string;
  /**
   * Uncommitted changes to tracked or untracked (not ignored) files.
   */
  git_dirty: boolean;
  /**
   * `process.version`, e.g. `v20.20.2`.
   */
  node_version: string;
  /**
   * `<process.platform>-<process.arch>`, e.g. `linux-x64`.
   */
  platform: string;
  arch: string;
  os_release: string;
  cpu_model: string;
  cpu_count: number;
  total_memory_bytes: number;
  /**
   * The amqplib package actually installed.
   */
  amqplib_version: string;
  /**
   * From the broker's connection properties; null when the broker was not reachable.
   */
  rabbitmq_version: string | null;
  /**
   * The broker URL with its password removed (`amqp://guest@host:5672`); empty when no broker was asked.
   */
  broker_url: string;
  captured_at: string;
  /**
   * First 8 hex characters of MD5(`git_commit:git_dirty:node_version:platform`): runs with the same fingerprint are comparable.
   */
  fingerprint: string;
  /**
   * The fault proxy the run used at TOXIPROXY_URL: a real Toxiproxy, or the embedded proxy (already answering, or to be started by the harness); null when none answered and none could be started. Absent in records of older runs.
   */
  fault_proxy_kind?: 'embedded' | 'toxiproxy' | null;
  /**
   * What its GET /version answered (the embedded proxy: the Toxiproxy release it reproduces).
   */
  fault_proxy_version?: string | null;
}
/**
 * How many of the run's tests passed, failed, were skipped or left todo, and how many test files could not run.
 */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
  /**
   * Every test reported, whatever its status.
   */
  total: number;
  /**
   * Test files that could not run at all (import error, failing hook).
   */
  failed_suites: number;
}
/**
 * One benchmark test as Jest reported it.
 */
export interface TestOutcome {
  /**
   * `<file relative to the Jest root>::<describe>::...::<test name>`, as raw results' test_id.
   */
  test_id: string;
  /**
   * Describe blocks and title joined by spaces, as Jest's `fullName` (what `-t` matches).
   */
  full_name: string;
  status: TestStatus;
  /**
   * null when Jest did not time the test.
   */
  duration_ms: number | null;
  /**
   * First failure message, ANSI codes removed, passwords masked, at most a few KB.
   */
  failure_message: string | null;
  /**
   * When the test started (Jest's startAt); absent in outcomes written before it was recorded.
   */
  started_at?: string;
}
/**
 * A test file that could not run at all (import error, failing hook), and Jest's message.
 */
export interface SuiteError {
  file: string;
  message: string;
}
/**
 * One of the figures a reader looks for first (peak throughput, detection after a reset, full recovery, ...), checked against its target.
 */
export interface KeyMetric {
  /**
   * Stable id for trends: `rst_detection`, `peak_publish_throughput`, ...
   */
  id: string;
  label: string;
  /**
   * The raw result it comes from: its name (family); `parameters` are that result's.
   */
  result_name: string;
  parameters: ResultParameters;
  /**
   * The metric's name in that result.
   */
  metric: string;
  value: number | null;
  unit: string;
  direction: Direction;
  target: null | KeyMetricTarget;
  /**
   * null when there is no target or no value, or when the figure is not scored (see `met_reason`).
   */
  met: boolean | null;
  /**
   * Why a figure with a value and a target is not scored: an upper bound, or not the fault the target is about. Always written; absent in runs recorded before it existed.
   */
  met_reason?: string | null;
  /**
   * The fault proxy that produced the figure: `Toxiproxy 2.12.0`, `embedded proxy (Toxiproxy 2.12.0 API)`; null when none was involved. Always written; absent in runs recorded before it existed.
   */
  fault_proxy?: string | null;
  /**
   * What a fault figure is timed from: the proxy's fault timeline (exact) or the injecting API call (upper bound); null for figures without a fault. Always written; absent in runs recorded before it existed.
   */
  reference?: 'exact' | 'upper_bound' | null;
}
/**
 * What a key metric is checked against: the product's default target for it, or one the benchmark declared.
 */
export interface KeyMetricTarget {
  comparator: '<' | '>';
  threshold: number;
  unit: string;
}
/**
 * A file of the raw-results folder that is not a raw result, reported rather than dropped (src/results/collect.ts).
 */
export interface InvalidResultFile {
  /**
   * Its name in the raw-results folder (prefixed by the shard's folder in a merged run).
   */
  file: string;
  /**
   * Why: not valid JSON, or what the raw-result schema finds wrong.
   */
  error: string;
}
/**
 * One shard of a run merged by `bench merge`.
 */
export interface ShardSummary {
  /**
   * `2/3`.
   */
  shard: string;
  /**
   * The folder it was merged from.
   */
  source: string;
  started_at: string;
  finished_at: string;
  jest_exit_code: number | null;
  /**
   * Tests in its Jest outcome.
   */
  tests: number;
  /**
   * Raw results it brought.
   */
  results: number;
}
