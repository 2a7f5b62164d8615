/**
 * Generated from schemas/verifications.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

/**
 * reports/benchmarks/verifications.json: what `bench verify` found, oldest first — the harness's own witnesses (harness/bare ratios, the proxy's overhead, the packet-capture check of the fault timeline, optionally the A/A check), each with its verdict, on one build (fingerprint) and one machine. Every report cites the latest one for its build, or the nearest earlier one (src/results/verifications.ts).
 */
export interface Verifications {
  schema_version: 1;
  verifications: Verification[];
}
export interface Verification {
  verified_at: string;
  /**
   * The build verified (the environment fingerprint).
   */
  fingerprint: string;
  git_commit: string;
  machine: VerificationMachine;
  /**
   * The run that measured the witnesses (its archive is beside this file); null when it archived nothing.
   */
  run_id: string | null;
  /**
   * Jest -t of a partial verification (some witnesses only); null: all of them.
   */
  test_name_filter: string | null;
  checks: VerificationCheck[];
  capture: CaptureCheck;
  /**
   * The A/A false-alarm check, when asked for (--aa).
   */
  aa: null | AaCheck;
  /**
   * sound: every check met; unsound: one missed; inconclusive: none missed, one inconclusive or with two sides that differ; incomplete: a witness did not run or had no value.
   */
  verdict: 'sound' | 'unsound' | 'inconclusive' | 'incomplete';
}
export interface VerificationMachine {
  hostname: string;
  cpu_model: string;
  cpu_count: number;
  platform: string;
}
export interface VerificationCheck {
  /**
   * The witness's result family (harness_overhead, recovery_harness_overhead, proxy_overhead, ...).
   */
  witness: string;
  label: string;
  metric: string;
  /**
   * Its parameters in words (`10 threads · amqplib (defaults)`).
   */
  configuration: string;
  comparator: '<' | '>';
  threshold: number;
  unit: string;
  value: number | null;
  /**
   * The target's verdict; differ: the two sides of a harness/bare witness did different work (its ratio outside the band), said in `detail` with each side's figures, never met.
   */
  verdict: 'met' | 'missed' | 'inconclusive' | 'differ' | 'no value';
  /**
   * Why the check is not met, in words (an inconclusive interval, two sides that differ), from the witness's result.
   */
  detail?: string;
  interval: null | {
    low: number;
    high: number;
    confidence: number;
    n: number;
  };
}
export interface CaptureCheck {
  /**
   * The proxy's fault timeline against a packet capture of its listen port (tshark): agreed within the tolerance, disagreed, or skipped (no tshark; how to install it is in the detail).
   */
  status: 'agreed' | 'disagreed' | 'skipped';
  detail: string;
  max_difference_ms?: number;
  connections?: number;
}
export interface AaCheck {
  runs: number;
  /**
   * The worst pair's share of judged metrics flagged.
   */
  false_alarm_percent: number;
  max_false_alarm_percent: number;
  threshold_percent: number;
  /**
   * `--threshold` would have passed every pair.
   */
  gate_passed: boolean;
  passed: boolean;
}
