/** node:http glue: body reading, routing, the browser check, error mapping, JSON answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiErrors, toApiErrorBody } from '../apiErrors';
import { parseJsonBody } from './goJson';
import { matchRoute } from './router';
import type { ApiContext, ApiResponse } from './types';

/** Bodies are small JSON documents; anything larger is refused rather than buffered. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A request listener for `http.createServer`; it never throws, whatever the input. */
export function createApiListener(context: ApiContext): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    response.on('error', () => undefined); // the client went away: nothing to do
    void answer(request, context).then((result) => send(response, result));
  };
}

async function answer(request: IncomingMessage, context: ApiContext): Promise<ApiResponse> {
  try {
    const [rawPath = '/', rawQuery = ''] = (request.url ?? '/').split('?', 2);
    const method = request.method ?? 'GET';
    const match = matchRoute(rawPath, method);
    // Toxiproxy refuses browsers so that a web page cannot drive the API (CSRF).
    if ((request.headers['user-agent'] ?? '').startsWith('Mozilla/')) throw apiErrors.browserRefused();
    const text = await readBody(request);
    return await match.handler(
      { method, params: match.params, query: new URLSearchParams(rawQuery), json: () => parseJsonBody(text) },
      context,
    );
  } catch (error) {
    const body = toApiErrorBody(error);
    return { status: body.status, body };
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sizeBytes = 0;
    request.on('data', (chunk: Buffer) => {
      sizeBytes += chunk.length;
      if (sizeBytes <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (sizeBytes > MAX_BODY_BYTES) reject(apiErrors.badRequestBody('http: request body too large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

function send(response: ServerResponse, result: ApiResponse): void {
  if (response.headersSent || response.destroyed) return;
  if (result.body === undefined) {
    response.writeHead(result.status).end();
    return;
  }
  const payload = JSON.stringify(result.body);
  response.writeHead(result.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }).end(payload);
}
