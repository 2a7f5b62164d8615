/**
 * The raw result: one JSON file per measurement in reports/.test-output/, written by the
 * benchmarks and read by the reporter, the archive, the comparison and the report.
 * JSON fields are snake_case (they are a data format, named as in the user's spec);
 * every metric carries its unit and the direction that counts as better.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const RAW_RESULT_SCHEMA_VERSION = 1;

export type Category = 'throughput' | 'scalability' | 'recovery' | 'stability' | 'resilience' | 'proxy';

/** `higher` for rates, `lower` for latencies and losses, `none` for counts that only describe. */
export type Direction = 'higher' | 'lower' | 'none';

export interface Metric {
  readonly value: number | null;
  /** e.g. `ms`, `msg/s`, `MB/s`, `%`, `count`, `bytes`. */
  readonly unit: string;
  readonly direction: Direction;
}

export interface Target {
  readonly metric: string;
  /** The metric must be below (`<`) or above (`>`) the threshold. */
  readonly comparator: '<' | '>';
  readonly threshold: number;
  readonly unit: string;
  /** null when the metric has no value (e.g. nothing detected). */
  readonly met: boolean | null;
}

/** An HDR histogram, kept encoded so percentiles and comparisons can be recomputed later. */
export interface EncodedHistogram {
  /** `hdr-histogram-js` compressed base64 (`encodeIntoCompressedBase64`). */
  readonly encoded: string;
  /** Unit of the recorded integer values, e.g. `us` (microseconds). */
  readonly unit: string;
  readonly count: number;
}

export interface RawResult {
  readonly schema_version: number;
  /** Family name, also the file-name prefix: `publish_throughput`, `massive_consumers`, `recovery_after_reset_peer`, ... */
  readonly name: string;
  readonly category: Category;
  /** Full Jest test id: `<file>::<describe>::<test name>`. */
  readonly test_id: string;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly metrics: Readonly<Record<string, Metric>>;
  /** Raw samples per metric name (e.g. per-round rates, per-thread latencies), for spread and significance tests. */
  readonly samples?: Readonly<Record<string, readonly number[]>>;
  readonly histograms?: Readonly<Record<string, EncodedHistogram>>;
  readonly targets?: readonly Target[];
  /** Free-form facts a reader needs (e.g. "detection timed from the proxy's RST moment"). */
  readonly notes?: readonly string[];
  /** Extra structured detail (per-thread records, injection bracket...), kept but not compared. */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly timestamp: string;
  readonly fingerprint: string;
}

let sequence = 0;

/** `<name>_<YYYYmmdd_HHMMSS>_<pid>_<seq>_<random>.json`: never collides, even within one second. */
export function rawResultFileName(name: string, at: Date = new Date()): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  sequence += 1;
  return `${name}_${stamp}_${process.pid}_${sequence}_${randomBytes(3).toString('hex')}.json`;
}

/** Writes a file atomically: a reader sees the old content or the new, never half of it. */
export function writeFileAtomic(filePath: string, content: string): void {
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  const temp = `${filePath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temp, content, { flag: 'wx' });
    fs.renameSync(temp, filePath);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** Writes one raw result into `dir`; returns the file path. */
export function writeRawResult(result: RawResult, dir: string): string {
  if (!/^[a-z0-9_]+$/.test(result.name)) throw new Error(`raw result name must be snake_case letters and digits; got ${JSON.stringify(result.name)}`);
  const filePath = path.join(dir, rawResultFileName(result.name, new Date(result.timestamp)));
  writeFileAtomic(filePath, `${JSON.stringify(result, null, 2)}\n`);
  return filePath;
}
