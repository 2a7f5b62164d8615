/**
 * The raw result: one JSON file per measurement in reports/.test-output/, written by the
 * benchmarks and read by the reporter, the archive, the comparison and the report.
 * JSON fields are snake_case (they are a data format, read by tools in other languages);
 * every metric carries its unit and the direction that counts as better.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { writeFileAtomic } from '../io/atomicFile';
import type { DeepReadonly } from './deepReadonly';
import type * as Schema from '../schemaTypes';
import { announceRawResult } from './writtenResults';

export const RAW_RESULT_SCHEMA_VERSION = 1;

// The shapes are generated from schemas/raw-result.schema.json (src/schemaTypes/), the contract.
export type RawResult = DeepReadonly<Schema.RawResult>;
export type Metric = DeepReadonly<Schema.Metric>;
export type Target = DeepReadonly<Schema.Target>;
export type EncodedHistogram = DeepReadonly<Schema.EncodedHistogram>;
/**
 * A raw result as a benchmark builds it, before recordResult fills in the id, time and
 * fingerprint, and — when the draft does not say — the category: its scenario's suite.
 */
export type ResultDraft = Omit<RawResult, 'schema_version' | 'test_id' | 'timestamp' | 'fingerprint' | 'category'> & {
  readonly category?: RawResult['category'];
};
export type { Category, Direction } from '../schemaTypes';

let sequence = 0;

/** `<name>_<YYYYmmdd_HHMMSS>_<pid>_<seq>_<random>.json`: never collides, even within one second. */
export function rawResultFileName(name: string, at: Date = new Date()): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  sequence += 1;
  return `${name}_${stamp}_${process.pid}_${sequence}_${randomBytes(3).toString('hex')}.json`;
}

/** Writes one raw result into `dir` and tells the reporter, if one keeps an index there (writtenResults.ts); returns the file path. */
export function writeRawResult(result: RawResult, dir: string): string {
  if (!/^[a-z0-9_]+$/.test(result.name))
    throw new Error(`raw result name must be snake_case letters and digits; got ${JSON.stringify(result.name)}`);
  const fileName = rawResultFileName(result.name, new Date(result.timestamp));
  const filePath = path.join(dir, fileName);
  writeFileAtomic(filePath, `${JSON.stringify(result, null, 2)}\n`);
  announceRawResult(dir, fileName);
  return filePath;
}
