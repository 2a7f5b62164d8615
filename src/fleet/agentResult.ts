/**
 * The file an agent of a fleet leaves (agent-<index>.json, schemas/fleet-agent-result.schema.json)
 * and sends its coordinator: built from its run, checked against the schema before it is written,
 * and read back (by the coordinator, or by `bench load-merge` from a CI matrix's artifacts).
 */
import fs from 'node:fs';
import os from 'node:os';
import zlib from 'node:zlib';
import { BenchError } from '../errors';
import { assertFollowsSchema, schemaProblem } from '../results/schemas';
import type { LoadRunDetail } from '../load/run';
import type { LoadResult } from '../load/result';
import type { FleetAgentResult } from '../schemaTypes/fleetAgentResult';

export type { FleetAgentResult };

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';

/**
 * Names this machine's monotonic clock: processes with the same boot id read one
 * CLOCK_MONOTONIC (`process.hrtime.bigint()`), so their times can be subtracted; elsewhere the
 * host name stands in.
 */
export function machineId(): string {
  try {
    return `boot:${fs.readFileSync(BOOT_ID_FILE, 'utf8').trim()}`;
  } catch {
    return `host:${os.hostname()}`;
  }
}

/** A bit set as the file holds it: raw deflate, base64. */
export function encodeBits(bits: Uint8Array): string {
  let end = bits.length;
  while (end > 0 && bits[end - 1] === 0) end -= 1;
  return zlib.deflateRawSync(bits.subarray(0, end)).toString('base64');
}

export function decodeBits(text: string): Uint8Array {
  return new Uint8Array(zlib.inflateRawSync(Buffer.from(text, 'base64')));
}

/** The sequence bits of a run, as the file holds them (empty sets when it never ran). */
export function sequenceBitsOf(detail: Pick<LoadRunDetail, 'sequenceBits'> | null): FleetAgentResult['sequence_bits'] {
  const empty = new Uint8Array(0);
  return {
    encoding: 'deflate-base64',
    seen: encodeBits(detail?.sequenceBits.seen ?? empty),
    confirmed: encodeBits(detail?.sequenceBits.confirmed ?? empty),
  };
}

/** The run's load result as the file's `result` (the schema's loose view of src/load/result.ts). */
export function fileResultOf(result: LoadResult): NonNullable<FleetAgentResult['result']> {
  return JSON.parse(JSON.stringify(result)) as NonNullable<FleetAgentResult['result']>;
}

/** The load result a file holds (its schema checked the fields; the shape is src/load/result.ts's). */
export function loadResultOf(file: FleetAgentResult): LoadResult | null {
  return file.result as unknown as LoadResult | null;
}

/** Writes `file` to `filePath` after checking it against its schema. @throws BenchError when it does not follow it */
export function writeAgentResult(filePath: string, file: FleetAgentResult): void {
  assertFollowsSchema('fleet-agent-result.schema.json', file, `agent ${file.agent.index}'s result`);
  fs.writeFileSync(filePath, `${JSON.stringify(file)}\n`);
}

/** Reads and checks one agent result file. @throws BenchError (RESULT_INVALID) saying what is wrong with it */
export function readAgentResult(filePath: string): FleetAgentResult {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(filePath, 'utf8'));
  } catch (error) {
    throw new BenchError('RESULT_INVALID', `${filePath}: not an agent result (${(error as Error).message})`);
  }
  const problem = schemaProblem('fleet-agent-result.schema.json', value);
  if (problem !== undefined)
    throw new BenchError('RESULT_INVALID', `${filePath} does not follow schemas/fleet-agent-result.schema.json: ${problem}`);
  return value as FleetAgentResult;
}
