/** The shapes every API handler shares. */
import type { ProxyCollection } from '../collection';

export interface ApiRequest {
  readonly method: string;
  /** Path variables, already URL-decoded (`proxy`, `toxic`). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The body as JSON, read as Go would. @throws ProxyError 400 */
  json(): unknown;
}

export interface ApiResponse {
  readonly status: number;
  /** Serialized with JSON.stringify; omitted for 204. */
  readonly body?: unknown;
}

export interface ApiContext {
  readonly collection: ProxyCollection;
  /** What `GET /version` reports. */
  readonly version: string;
}

export type Handler = (request: ApiRequest, context: ApiContext) => Promise<ApiResponse> | ApiResponse;
