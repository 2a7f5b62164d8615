/**
 * Request bodies read the way Toxiproxy's Go `encoding/json` reads them, so that the same
 * bodies pass and fail: unknown fields are ignored, `null` leaves a field at its default,
 * keys match exactly or else case-insensitively, a wrong type is a 400 worded like Go's
 * (`json: cannot unmarshal number into Go struct field Proxy.name of type string`).
 */
import { apiErrors } from '../apiErrors';

export type JsonObject = { readonly [key: string]: unknown };

type JsonKind = 'string' | 'number' | 'bool' | 'array' | 'object' | 'null';

function jsonKind(value: unknown): JsonKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'object') return 'object';
  return typeof value === 'number' ? 'number' : 'string';
}

/** Go's largest int64 magnitude; beyond it Go refuses the number. */
const INT64_LIMIT = 2 ** 63;

function typeMismatch(value: unknown, goField: string, goType: string): Error {
  const kind = jsonKind(value);
  const shown = kind === 'number' ? `number ${String(value)}` : kind;
  return apiErrors.badRequestBody(`json: cannot unmarshal ${shown} into Go struct field ${goField} of type ${goType}`);
}

/** Parses a body; an empty one is Go's `EOF`. @throws ProxyError 400 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw apiErrors.badRequestBody('EOF');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw apiErrors.badRequestBody(error instanceof Error ? error.message : String(error));
  }
}

/**
 * A JSON value decoded into a Go struct: an object, or undefined for `null` (no change).
 * @param goField the field path for a nested struct; omitted for the whole body
 * @throws ProxyError 400 for any other kind of value
 */
export function asStruct(value: unknown, goType: string, goField?: string): JsonObject | undefined {
  const kind = jsonKind(value);
  if (kind === 'null') return undefined;
  if (kind === 'object') return value as JsonObject;
  if (goField !== undefined) throw typeMismatch(value, goField, goType);
  throw apiErrors.badRequestBody(`json: cannot unmarshal ${kind} into Go value of type ${goType}`);
}

/** A JSON array decoded into a Go slice; undefined for `null`. @throws ProxyError 400 */
export function asSlice(value: unknown, goType: string): readonly unknown[] | undefined {
  const kind = jsonKind(value);
  if (kind === 'null') return undefined;
  if (kind === 'array') return value as unknown[];
  throw apiErrors.badRequestBody(`json: cannot unmarshal ${kind} into Go value of type ${goType}`);
}

/** The value for a Go field: exact key first, then any key equal ignoring case; null is absent. */
export function fieldValue(object: JsonObject | undefined, key: string): unknown {
  if (object === undefined) return undefined;
  if (Object.prototype.hasOwnProperty.call(object, key)) return object[key] ?? undefined;
  const lowered = key.toLowerCase();
  for (const [candidate, value] of Object.entries(object)) {
    if (candidate.toLowerCase() === lowered) return value ?? undefined;
  }
  return undefined;
}

export function decodeString(object: JsonObject | undefined, key: string, goField: string): string | undefined {
  const value = fieldValue(object, key);
  if (value === undefined || typeof value === 'string') return value;
  throw typeMismatch(value, goField, 'string');
}

export function decodeBool(object: JsonObject | undefined, key: string, goField: string): boolean | undefined {
  const value = fieldValue(object, key);
  if (value === undefined || typeof value === 'boolean') return value;
  throw typeMismatch(value, goField, 'bool');
}

export function decodeFloat(
  object: JsonObject | undefined,
  key: string,
  goField: string,
  goType: 'float32' | 'float64',
): number | undefined {
  const value = fieldValue(object, key);
  if (value === undefined || typeof value === 'number') return value;
  throw typeMismatch(value, goField, goType);
}

export function decodeInteger(object: JsonObject | undefined, key: string, goField: string, goType: 'int64' | 'int'): number | undefined {
  const value = fieldValue(object, key);
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < INT64_LIMIT) return value;
  throw typeMismatch(value, goField, goType);
}
