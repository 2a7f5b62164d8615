/**
 * The client protocol on the wire (schemas/client-protocol.schema.json, version 2): what a client
 * program may print, checked line by line against the schema, and the commands written to it. A
 * line that is not the protocol is never guessed at: the driver ends the program and says which
 * line it was and what was wrong with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { default as Ajv2020Class, ValidateFunction } from 'ajv/dist/2020';
import { packageRoot } from '../../packageRoot';
import type { Description, Event, Failure, Hello, Output, Reply } from '../../schemaTypes/clientProtocol';

/** The protocol version this harness speaks (and its programs). */
export const PROTOCOL_VERSION = 2;
/** Every version a program may speak to this harness: a version-1 program has no `recover` (its recovery crosses the pipe). */
export const SUPPORTED_PROTOCOLS: readonly number[] = [1, 2];
/** The first version with `recover`, the recovery round trip made and timed inside the program. */
export const RECOVER_SINCE = 2;

/** What a program that speaks `said` is told when this harness does not speak it. */
export function unsupportedProtocol(words: string, said: string | number): string {
  return `${words} speaks protocol ${said}; this harness speaks ${SUPPORTED_PROTOCOLS.join(' and ')} (update amqp-bench, or have the program speak ${PROTOCOL_VERSION})`;
}

/** The version a line that failed the schema claims, when it is a hello or a description naming one this harness does not speak. */
export function unsupportedVersionOf(line: string): string | undefined {
  const said = /"protocol"\s*:\s*(\d+)/.exec(line)?.[1];
  return said !== undefined && !SUPPORTED_PROTOCOLS.includes(Number(said)) ? said : undefined;
}
const SCHEMA_ID = 'https://amqp-bench.schemas/client-protocol.schema.json';

let validators: { readonly output: ValidateFunction; readonly description: ValidateFunction } | undefined;

function compiled(): NonNullable<typeof validators> {
  if (validators) return validators;
  // Loaded on first use, not with the module: every worker thread of every client loads this
  // module (the client registry), and loading ajv took 140 ms of each thread's start on two
  // cores, most of a 50-thread pool's start, for programs (kombu, pika, amqp091-go) it never runs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- on first use (above); the type is imported
  const { default: Ajv2020 } = require('ajv/dist/2020') as { default: typeof Ajv2020Class };
  const ajv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true });
  ajv.addSchema(JSON.parse(fs.readFileSync(path.join(packageRoot(), 'schemas', 'client-protocol.schema.json'), 'utf8')) as object);
  const of = (name: string): ValidateFunction => ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`)!;
  validators = { output: of('output'), description: of('description') };
  return validators;
}

/** A line that is not the protocol: what was wrong, and the line (cut short). */
export class NotTheProtocol extends Error {}

/** The line, cut to what a one-line report can quote. */
export function quoteLine(line: string): string {
  return JSON.stringify(line.length > 160 ? `${line.slice(0, 160)}…` : line);
}

function parseChecked<T>(line: string, validate: ValidateFunction, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new NotTheProtocol(`printed a line that is not JSON: ${quoteLine(line)}`);
  }
  if (!validate(value)) {
    const first = validate.errors?.[0];
    const where = first ? `${first.instancePath || 'the line'} ${first.message ?? 'is invalid'}` : 'it matches no message';
    throw new NotTheProtocol(`printed ${what} that is not the protocol (${where}): ${quoteLine(line)}`);
  }
  return value as T;
}

/** One line of a running program. @throws NotTheProtocol */
export function parseOutput(line: string): Output {
  return parseChecked<Output>(line, compiled().output, 'a line');
}

/** What `--describe` printed. @throws NotTheProtocol */
export function parseDescription(line: string): Description {
  return parseChecked<Description>(line, compiled().description, 'a description');
}

export const isHello = (output: Output): output is Hello => 'ev' in output && output.ev === 'hello';
export const isEvent = (output: Output): output is Event => 'ev' in output && output.ev !== 'hello';
export const isReply = (output: Output): output is Reply => 're' in output && output.ok;
export const isFailure = (output: Output): output is Failure => 're' in output && !output.ok;

/** A protocol time (decimal ns) as a bigint. */
export const nsOf = (value: string): bigint => BigInt(value);
