/**
 * GitHub's own workflow schema, as ajv can use it.
 *
 * `schemas/vendor/github-workflow-v1.0.json` is the template schema GitHub's workflow parser
 * (npm `@actions/workflow-parser`, the parser behind the Actions language service) validates
 * workflow files with. It is not JSON Schema but a small language of its own: each definition
 * is a `string` (optionally a constant or non-empty), `boolean`, `number`, `null`, a `mapping`
 * (named properties, some required, and/or loose keys and values), a `sequence`, a set of
 * `allowed-values`, or `one-of` other definitions. A definition with a `context` accepts
 * `${{ expressions }}` in itself and everything below it. This module translates that
 * language, definition by definition, into draft-07 JSON Schema.
 *
 * Two deliberate choices, both stricter than the loose parse and both what GitHub enforces:
 * the workflow's `on` is checked against `on-strict` (known event names and their filters),
 * and a mapping without loose keys rejects unknown keys (a typo such as `usess:` fails).
 */
import Ajv, { type ErrorObject } from 'ajv';

type PropertyDefinition = string | { readonly type: string; readonly required?: boolean };

interface TemplateDefinition {
  readonly description?: string;
  readonly context?: readonly string[];
  readonly 'one-of'?: readonly string[];
  readonly 'allowed-values'?: readonly string[];
  readonly string?: { readonly constant?: string; readonly 'require-non-empty'?: boolean };
  readonly boolean?: object;
  readonly number?: object;
  readonly null?: object;
  readonly sequence?: { readonly 'item-type': string };
  readonly mapping?: {
    readonly properties?: Readonly<Record<string, PropertyDefinition>>;
    readonly 'loose-key-type'?: string;
    readonly 'loose-value-type'?: string;
  };
}

export interface TemplateSchema {
  readonly version: string;
  readonly definitions: Readonly<Record<string, TemplateDefinition>>;
}

type JsonSchema = Record<string, unknown>;

/** A scalar where the template language wants a string: YAML numbers and booleans are read as their text. */
const SCALAR_STRING: JsonSchema = { type: ['string', 'number', 'boolean'] };
/** A value GitHub evaluates at run time; its type is checked then, not here. */
const EXPRESSION: JsonSchema = { type: 'string', pattern: '\\$\\{\\{' };

const BUILT_INS: Readonly<Record<string, JsonSchema>> = {
  any: {},
  null: { type: 'null' },
  boolean: { type: 'boolean' },
  number: { type: 'number' },
  string: SCALAR_STRING,
  sequence: { type: 'array' },
  mapping: { type: 'object' },
};

/** Names the checks that are stricter than the template's loose entry points. */
const STRICT_OVERRIDES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'workflow-root': { on: 'on-strict' },
};

/** Translates the template schema into one draft-07 JSON Schema rooted at `rootName`. */
export function templateToJsonSchema(template: TemplateSchema, rootName = 'workflow-root'): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};

  const ref = (name: string, expressions: boolean): JsonSchema => ({ $ref: `#/definitions/${visit(name, expressions)}` });

  const visit = (name: string, expressions: boolean): string => {
    const key = expressions ? `${name}__expr` : name;
    if (!(key in definitions)) {
      definitions[key] = {}; // placeholder: definitions refer to each other recursively
      definitions[key] = translate(name, expressions);
    }
    return key;
  };

  const translate = (name: string, inheritedExpressions: boolean): JsonSchema => {
    const builtIn = BUILT_INS[name];
    if (builtIn) return inheritedExpressions ? { anyOf: [EXPRESSION, builtIn] } : builtIn;
    const definition = template.definitions[name];
    if (!definition) throw new Error(`the template schema refers to an unknown definition "${name}"`);
    const expressions = inheritedExpressions || (definition.context?.length ?? 0) > 0;
    const alternatives: JsonSchema[] = [];
    for (const other of definition['one-of'] ?? []) alternatives.push(ref(other, expressions));
    if (definition['allowed-values']) alternatives.push({ enum: [...definition['allowed-values']] });
    if (definition.string) {
      const { constant, 'require-non-empty': nonEmpty } = definition.string;
      alternatives.push(constant !== undefined ? { const: constant } : nonEmpty ? { ...SCALAR_STRING, minLength: 1 } : SCALAR_STRING);
    }
    if (definition.boolean) alternatives.push({ type: 'boolean' });
    if (definition.number) alternatives.push({ type: 'number' });
    if (definition.null) alternatives.push({ type: 'null' });
    if (definition.sequence) alternatives.push({ type: 'array', items: ref(definition.sequence['item-type'], expressions) });
    if (definition.mapping) alternatives.push(translateMapping(name, definition.mapping, expressions));
    if (alternatives.length === 0) throw new Error(`the template definition "${name}" has no type this translation knows`);
    const schema = alternatives.length === 1 ? alternatives[0]! : { anyOf: alternatives };
    return expressions ? { anyOf: [EXPRESSION, schema] } : schema;
  };

  const translateMapping = (name: string, mapping: NonNullable<TemplateDefinition['mapping']>, expressions: boolean): JsonSchema => {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, property] of Object.entries(mapping.properties ?? {})) {
      const type = STRICT_OVERRIDES[name]?.[key] ?? (typeof property === 'string' ? property : property.type);
      properties[key] = ref(type, expressions);
      if (typeof property !== 'string' && property.required === true) required.push(key);
    }
    const looseValue = mapping['loose-value-type'];
    const looseKey = mapping['loose-key-type'];
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...(looseKey ? { propertyNames: ref(looseKey, false) } : {}),
      additionalProperties: looseValue ? ref(looseValue, expressions) : false,
    };
  };

  const root = visit(rootName, false);
  return { $schema: 'http://json-schema.org/draft-07/schema#', $ref: `#/definitions/${root}`, definitions };
}

export interface WorkflowValidation {
  readonly valid: boolean;
  readonly errors: readonly string[];
}

/** Compiles the translated schema once; the returned function validates a parsed workflow. */
export function compileWorkflowValidator(template: TemplateSchema): (workflow: unknown) => WorkflowValidation {
  const ajv = new Ajv({ allErrors: true, strictTypes: false, allowUnionTypes: true });
  const validate = ajv.compile(templateToJsonSchema(template));
  return (workflow) => {
    const valid = validate(workflow);
    return { valid, errors: valid ? [] : describeErrors(validate.errors ?? []) };
  };
}

/** Only the deepest errors, once each: with `anyOf`, the most specific complaint is the useful one. */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  const depth = (error: ErrorObject): number => error.instancePath.split('/').length;
  const deepest = Math.max(...errors.map(depth));
  const lines = errors
    .filter((error) => depth(error) === deepest)
    .map((error) => {
      const extra = 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : '';
      return `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${extra}`;
    });
  return [...new Set(lines)];
}
