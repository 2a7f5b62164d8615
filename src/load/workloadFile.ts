/**
 * A workload file (`bench load workloads/x.yaml`): YAML or JSON (JSON is read by the same YAML
 * parser), checked against schemas/workload.schema.json with ajv, then resolved. Every problem
 * names the file, the line and the field: `workloads/x.yaml line 7: rate: must be ≥ 0`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020';
import { isMap, isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { WorkloadFileError } from '../errors';
import { schemaRegistry } from '../results/schemas';
import { resolveWorkload, type LoadWorkload, type WorkloadInput } from './workload';

const SCHEMA_ID = 'https://amqp-bench.schemas/workload.schema.json';

/** The file's fields, checked against the schema (not yet resolved: flags may override some). */
export interface WorkloadFileContent {
  readonly file: string;
  readonly input: WorkloadInput;
  /** Where a field is, for problems found after the schema check (a fault kind, a duration). */
  lineOf(field: string): number | null;
}

/**
 * Reads and checks `file` (shown as given, relative to the working directory where possible).
 * `env:NAME` reads the file's text from the environment variable NAME (a Kubernetes manifest
 * carries the workload that way).
 * @throws WorkloadFileError naming the line and the field of the first problem
 */
export function readWorkloadFile(file: string): WorkloadFileContent {
  const fromEnv = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(file);
  if (fromEnv) {
    const text = process.env[fromEnv[1]!];
    if (text === undefined || text.trim() === '')
      throw new WorkloadFileError(
        file,
        null,
        '',
        `names the environment variable ${fromEnv[1]!}, which is not set: set it to the workload file's text`,
      );
    return parseWorkloadText(text, file);
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String((error as Error).message);
    throw new WorkloadFileError(file, null, '', `cannot be read (${reason}); give the path of a .yaml or .json workload file`);
  }
  return parseWorkloadText(text, file);
}

/** Parses and checks workload `text` (`file` names it in messages). @throws WorkloadFileError */
export function parseWorkloadText(text: string, file: string): WorkloadFileContent {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = document.errors[0];
  if (syntax) {
    const line = lineCounter.linePos(syntax.pos[0]).line;
    throw new WorkloadFileError(
      file,
      line,
      '',
      `is not valid ${path.extname(file) === '.json' ? 'JSON' : 'YAML'}: ${syntax.message.split('\n')[0]}`,
    );
  }
  if (!isMap(document.contents))
    throw new WorkloadFileError(file, 1, '', 'must be a mapping of workload fields (producers, rate, size, ...); see docs/guide/load.md');
  const lineOf = (field: string): number | null => lineOfPath(document, lineCounter, fieldPath(field));
  const input = document.toJS() as unknown;
  const problem = schemaProblemOf(input);
  if (problem) throw new WorkloadFileError(file, lineOf(problem.field), problem.field, problem.problem);
  return { file, input: input as WorkloadInput, lineOf };
}

/** The first problem of `input` against the schema, as a field and words; undefined when there is none. */
export function schemaProblemOf(input: unknown): { readonly field: string; readonly problem: string } | undefined {
  const validate = schemaRegistry().getSchema(SCHEMA_ID);
  if (!validate) throw new Error(`schemas/workload.schema.json is not loaded`);
  if (validate(input)) return undefined;
  const error = mostTelling(validate.errors ?? []);
  return { field: fieldOf(error), problem: problemOf(error) };
}

/** Resolves a file's workload (with `overrides` from flags on top). @throws WorkloadFileError */
export function resolveWorkloadFile(content: WorkloadFileContent, overrides: WorkloadInput = {}): LoadWorkload {
  return resolveWorkload({ ...content.input, ...overrides }, (field, problem) => {
    const root = field.split(/[.[]/)[0]!;
    const fromFlag = (overrides as Record<string, unknown>)[root] !== undefined;
    throw new WorkloadFileError(fromFlag ? 'the flags' : content.file, fromFlag ? null : content.lineOf(field), field, problem);
  });
}

/** `faults[0].fault` -> ['faults', 0, 'fault']. */
function fieldPath(field: string): (string | number)[] {
  if (field === '') return [];
  return field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** The line of the deepest node on `keys` that exists (the field's own line, or its parent's when it is missing). */
function lineOfPath(document: Document, lineCounter: LineCounter, keys: readonly (string | number)[]): number | null {
  for (let depth = keys.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? document.contents : document.getIn(keys.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return null;
}

/** `/faults/0/at` -> `faults[0].at`; a missing or unknown property names itself. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty) parts.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && params.additionalProperty) parts.push(params.additionalProperty);
  return parts.reduce((text, part) => (/^\d+$/.test(part) ? `${text}[${part}]` : text === '' ? part : `${text}.${part}`), '');
}

/**
 * The error a person needs among ajv's (a `oneOf` lists each branch's): the deepest, and of those
 * a bound or a pattern rather than a type mismatch of a branch the value was never meant for.
 */
function mostTelling(errors: readonly ErrorObject[]): ErrorObject {
  const depth = (error: ErrorObject) => fieldOf(error).split(/[.[]/).length;
  const deepest = Math.max(...errors.map(depth));
  const candidates = errors.filter((error) => depth(error) === deepest && error.keyword !== 'oneOf');
  const rank = (error: ErrorObject) => (error.keyword === 'type' ? 2 : error.keyword === 'required' ? 1 : 0);
  return [...candidates].sort((a, b) => rank(a) - rank(b))[0] ?? errors[0]!;
}

function problemOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'minimum':
      return `must be ≥ ${String(params.limit)}`;
    case 'maximum':
      return `must be ≤ ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be > ${String(params.limit)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a workload field (see schemas/workload.schema.json or docs/guide/load.md for the fields there are)';
    case 'pattern':
      return `must be ${patternWords(fieldOf(error))}`;
    case 'type':
      return `must be ${String(params.type).replace(',', ' or ')}${fieldOf(error).startsWith('rate') ? ' (a number, or {steps: [...]} or {ramp: {...}})' : ''}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** What a pattern-checked field must look like, in words. */
function patternWords(field: string): string {
  const last = field.split('.').pop() ?? field;
  if (/duration|warmup|at$|length$/.test(last)) return 'a duration such as 500ms, 30s or 2m';
  if (last === 'ack') return 'auto, manual, multiple:N or nack:FRACTION';
  if (last === 'size') return 'BYTES or MIN:MAX';
  if (last === 'queue_pattern') return 'a name with %d where the queue number goes';
  if (last === 'client') return 'NAME or NAME:PROFILE, e.g. amqplib:defaults';
  if (last === 'name') return 'snake_case letters and digits';
  return 'see schemas/workload.schema.json';
}
