/**
 * The JSON files the harness keeps appending to (the history, the verifications): read one,
 * tell a missing file from a corrupt one, refuse one written by a newer harness, and move a
 * corrupt one aside (`<name>.corrupt-<timestamp>.json`) so nothing is ever overwritten.
 */
import fs from 'node:fs';
import { BenchError } from '../errors';
import { schemaProblem, type SchemaFile } from './schemas';

export type VersionedRead =
  { readonly kind: 'missing' } | { readonly kind: 'corrupt'; readonly reason: string } | { readonly kind: 'ok'; readonly value: unknown };

/**
 * Reads `filePath` against `schema`; `precheck` says first why a parsed value is not one at all.
 * @throws BenchError when its schema_version is newer than `supportedVersion` (it must not be rewritten)
 */
export function readVersionedJson(
  filePath: string,
  schema: SchemaFile,
  supportedVersion: number,
  precheck: (parsed: unknown) => string | undefined = () => undefined,
): VersionedRead {
  let text: string;
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { kind: 'corrupt', reason: `not valid JSON (${(error as Error).message})` };
  }
  const structural = precheck(parsed);
  if (structural !== undefined) return { kind: 'corrupt', reason: structural };
  const version = (parsed as { schema_version?: unknown } | null)?.schema_version;
  if (typeof version === 'number' && version > supportedVersion)
    throw new BenchError(
      'RESULT_INVALID',
      `${filePath} has schema_version ${version}, newer than this harness (${supportedVersion}); update the harness or move the file away`,
    );
  // Every file this harness wrote follows its schema; one that does not was written by something
  // else, and is not extended but moved aside like garbage.
  const problem = schemaProblem(schema, parsed);
  if (problem !== undefined) return { kind: 'corrupt', reason: `it does not follow schemas/${schema}: ${problem}` };
  return { kind: 'ok', value: parsed };
}

/** Renames a corrupt file to `<name>.corrupt-<timestamp>.json` (a free name); null when there is none. */
export function moveCorruptAside(filePath: string, now: Date): string | null {
  if (!fs.existsSync(filePath)) return null;
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '_');
  const base = filePath.replace(/\.json$/, `.corrupt-${stamp}`);
  for (let attempt = 1; ; attempt += 1) {
    const target = attempt === 1 ? `${base}.json` : `${base}_${attempt}.json`;
    if (fs.existsSync(target)) continue;
    fs.renameSync(filePath, target);
    return target;
  }
}
