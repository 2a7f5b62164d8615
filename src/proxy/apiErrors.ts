/**
 * The API's errors, worded and numbered exactly as Toxiproxy's `api.go`, and the one
 * function that turns anything thrown into the `{"error": ..., "status": ...}` answer.
 */
import { ProxyError } from '../errors';

/** An error the API answers with its own status. */
export function apiError(message: string, status: number): ProxyError {
  return new ProxyError('PROXY_API', message, status);
}

export const apiErrors = {
  badRequestBody: (detail: string) => apiError(`bad request body: ${detail}`, 400),
  missingField: (field: string) => apiError(`missing required field: ${field}`, 400),
  invalidStream: () => apiError('stream was invalid, can be either upstream or downstream', 400),
  invalidToxicType: () => apiError('invalid toxic type', 400),
  proxyNotFound: () => apiError('proxy not found', 404),
  toxicNotFound: () => apiError('toxic not found', 404),
  proxyAlreadyExists: () => apiError('proxy already exists', 409),
  toxicAlreadyExists: () => apiError('toxic already exists', 409),
  /** Listen/bind failure: Toxiproxy answers 500 with the system message. */
  listenFailed: (message: string) => apiError(message, 500),
  routeNotFound: () => apiError('404 page not found', 404),
  methodNotAllowed: () => apiError('405 method not allowed', 405),
  browserRefused: () => apiError('User agent not allowed', 403),
  /** Extension endpoints only (Toxiproxy has no query parameters). */
  badQuery: (detail: string) => apiError(`bad request: ${detail}`, 400),
} as const;

export interface ApiErrorBody {
  readonly error: string;
  readonly status: number;
}

/** Anything thrown by a handler, as the API answers it. Unknown failures are 500, as in Toxiproxy. */
export function toApiErrorBody(error: unknown): ApiErrorBody {
  if (error instanceof ProxyError && error.status !== undefined) return { error: error.message, status: error.status };
  return { error: error instanceof Error ? error.message : String(error), status: 500 };
}
