/**
 * The JSON schemas in schemas/ are the contract of every file the harness writes and reads back.
 * They are checked here, with ajv, at run time: a file is what its schema says, nothing else
 * decides (the TypeScript types are generated from the same schemas, src/schemaTypes/).
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';

export const SCHEMAS_DIR = path.join(PROJECT_ROOT, 'schemas');
const SCHEMA_ID_BASE = 'https://amqp-bench.schemas/';

export type SchemaFile =
  | 'raw-result.schema.json'
  | 'run-archive.schema.json'
  | 'benchmark-history.schema.json'
  | 'jest-outcome.schema.json'
  | 'shard-manifest.schema.json'
  | 'run-manifest.schema.json'
  | 'verifications.schema.json'
  | 'recovery-details.schema.json'
  | 'matrix-details.schema.json'
  | 'fleet-agent-result.schema.json';

let ajv: Ajv2020 | undefined;

/** Ajv with every schema of schemas/ (compiled once per process); date-time checked by Date.parse. */
export function schemaRegistry(): Ajv2020 {
  if (ajv) return ajv;
  const registry = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  registry.addFormat('date-time', (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)));
  for (const file of fs.readdirSync(SCHEMAS_DIR).filter((name) => name.endsWith('.schema.json'))) {
    registry.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, file), 'utf8')) as object);
  }
  ajv = registry;
  return registry;
}

function validatorOf(file: SchemaFile): ValidateFunction {
  const validate = schemaRegistry().getSchema(`${SCHEMA_ID_BASE}${file}`);
  if (!validate) throw new Error(`no schema ${file} in ${SCHEMAS_DIR}`);
  return validate;
}

/** Why `value` does not follow `file`'s schema (one line per problem, at most five), or undefined when it does. */
export function schemaProblem(file: SchemaFile, value: unknown): string | undefined {
  const validate = validatorOf(file);
  if (validate(value)) return undefined;
  return describeSchemaErrors(validate.errors ?? []);
}

/**
 * Checks a document before it is written: a file this harness writes always follows its schema,
 * so a reader (this version or a later one) can trust it.
 * @throws BenchError (RESULT_INVALID) naming the document, the schema and each problem
 */
export function assertFollowsSchema(file: SchemaFile, value: unknown, what: string): void {
  const problem = schemaProblem(file, value);
  if (problem !== undefined) {
    throw new BenchError(
      'RESULT_INVALID',
      `${what} does not follow schemas/${file} (${problem}); nothing was written: a bug in the harness, which built it`,
    );
  }
}

/** Ajv's errors as short text: `/metrics/x/direction must be equal to one of the allowed values (higher, lower, none)`. */
export function describeSchemaErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.slice(0, 5).map((error) => {
    const where = error.instancePath === '' ? 'the document' : error.instancePath;
    const allowed = Array.isArray((error.params as { allowedValues?: unknown }).allowedValues)
      ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
      : '';
    return `${where} ${error.message ?? 'is invalid'}${allowed}`;
  });
  return lines.join('; ') + (errors.length > 5 ? `; and ${errors.length - 5} more` : '');
}
