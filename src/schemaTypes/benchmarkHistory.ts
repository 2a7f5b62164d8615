/**
 * Generated from schemas/benchmark-history.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

import type { Category, Metric, ResultParameters } from './rawResult';
import type { KeyMetric, RunStatus, TestCounts } from './runArchive';

/**
 * reports/benchmarks/benchmark_history.json: one entry per run, oldest first, with the key metrics and every result's metric values (no samples; those are in the run archive named by archive_file). Written under a lock (benchmark_history.json.lock); a file that does not parse, or does not follow this schema, is moved to benchmark_history.corrupt-<timestamp>.json (src/results/history.ts).
 */
export interface BenchmarkHistory {
  schema_version: 1;
  updated_at: string;
  runs: HistoryEntry[];
}
/**
 * One run, enough for trend charts and for a comparison when its archive is gone.
 */
export interface HistoryEntry {
  run_id: string;
  /**
   * File name of the run archive, in the same folder.
   */
  archive_file: string;
  status: RunStatus;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  fingerprint: string;
  git_commit: string;
  git_dirty: boolean;
  node_version: string;
  platform: string;
  /**
   * Marker expression the benchmarks were selected with; null = all.
   */
  marker_expression: string | null;
  /**
   * Jest `-t` test-name filter; null = none.
   */
  test_name_filter: string | null;
  counts: TestCounts;
  /**
   * Tests that executed (passed + failed). With status, it marks a run that failed part-way; comparisons take only runs that passed as the baseline. A run that executed no test has no entry. Absent in entries written before it existed.
   */
  tests_run?: number;
  key_metrics: KeyMetric[];
  /**
   * Every result's metric values (no samples): a comparison can fall back on these.
   */
  results: HistoryResult[];
}
/**
 * A raw result without its samples, replicates, histograms and details: what identifies it, and its metrics.
 */
export interface HistoryResult {
  name: string;
  category: Category;
  parameters: ResultParameters;
  metrics: {
    [k: string]: Metric;
  };
}
