/**
 * Kubernetes' own schema of its batch/v1 API (schemas/vendor/kubernetes-1.30-batch-v1-openapi.json,
 * the OpenAPI v3 document the API server serves at /openapi/v3/apis/batch/v1), as ajv can use it.
 *
 * The document is OpenAPI, not a JSON Schema file: its definitions sit under
 * `components.schemas` and refer to each other there. This module moves them under `definitions`
 * (draft-07) and makes the check as strict as the API server's strict field validation
 * (`kubectl apply --validate=strict`, and kubeconform's -strict): an object with named properties
 * rejects a field it does not name (a typo such as `completionmode:` fails instead of being
 * dropped), unless the schema itself allows more (`additionalProperties`,
 * `x-kubernetes-preserve-unknown-fields`); and a kind's `apiVersion` and `kind` must be the ones its
 * `x-kubernetes-group-version-kind` says.
 */
import Ajv, { type ErrorObject } from 'ajv';

type JsonSchema = Record<string, unknown>;

interface OpenApiDocument {
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> };
}

const REF_PREFIX = '#/components/schemas/';

function strictCopy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictCopy);
  if (typeof node !== 'object' || node === null) return node;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX))
      copy[key] = `#/definitions/${value.slice(REF_PREFIX.length)}`;
    else if (key === 'properties')
      copy[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, schema]) => [name, strictCopy(schema)]));
    else copy[key] = strictCopy(value);
  }
  if ('properties' in copy && !('additionalProperties' in copy) && copy['x-kubernetes-preserve-unknown-fields'] !== true)
    copy.additionalProperties = false;
  const kinds = copy['x-kubernetes-group-version-kind'] as readonly { group: string; version: string; kind: string }[] | undefined;
  if (kinds?.length === 1 && 'properties' in copy) {
    const [{ group, version, kind }] = kinds as [{ group: string; version: string; kind: string }];
    const properties = copy.properties as JsonSchema;
    copy.properties = { ...properties, apiVersion: { const: group === '' ? version : `${group}/${version}` }, kind: { const: kind } };
    copy.required = [...new Set([...((copy.required as string[] | undefined) ?? []), 'apiVersion', 'kind'])];
  }
  return copy;
}

/** Draft-07 JSON Schema of one kind of the document (`io.k8s.api.batch.v1.Job`). */
export function kindSchema(document: OpenApiDocument, definition: string): JsonSchema {
  if (!(definition in document.components.schemas)) throw new Error(`the OpenAPI document has no ${definition}`);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    allOf: [{ $ref: `#/definitions/${definition}` }],
    definitions: strictCopy(document.components.schemas),
  };
}

export interface ManifestValidation {
  readonly valid: boolean;
  readonly errors: readonly string[];
}

/** Compiles one kind's check; Kubernetes' own formats are checked as the API server reads them. */
export function compileKindValidator(document: OpenApiDocument, definition: string): (manifest: unknown) => ManifestValidation {
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
  const int = (bits: number) => (value: number) => Number.isInteger(value) && Math.abs(value) < 2 ** (bits - 1);
  ajv.addFormat('int32', { type: 'number', validate: int(32) });
  ajv.addFormat('int64', { type: 'number', validate: int(64) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  ajv.addFormat('int-or-string', () => true);
  const validate = ajv.compile(kindSchema(document, definition));
  return (manifest) => {
    const valid = validate(manifest);
    return { valid, errors: valid ? [] : describe(validate.errors ?? []) };
  };
}

function describe(errors: readonly ErrorObject[]): string[] {
  return [
    ...new Set(
      errors.map((error) => {
        const extra = 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : '';
        return `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${extra}`;
      }),
    ),
  ];
}
