/**
 * Real servers on free loopback ports that look like a fault proxy API and are not a usable one:
 * an HTTP server answering 404 (something else owns the port), one that looks like a wedged
 * Toxiproxy (answers /version, never /proxies), one that accepts and never answers. Each `close()`
 * also drops the connections it holds, so a test never leaves a socket or a port behind.
 */
import http from 'node:http';
import net from 'node:net';
import { freePort } from './ports';

export interface FakeServer {
  readonly port: number;
  readonly url: string;
  /** Requests seen, as `METHOD /path`. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** An HTTP server with `handler` on a free loopback port. */
export async function startHttpServer(handler: Handler): Promise<FakeServer> {
  const port = await freePort();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers 404 to everything, as an unrelated web server would. */
export function startNotFoundServer(): Promise<FakeServer> {
  return startHttpServer((_request, response) => {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
  });
}

/** Answers `GET /version` as Toxiproxy 2.12 does; holds every other request open, never answering. */
export function startWedgedToxiproxy(): Promise<FakeServer> {
  return startHttpServer((request, response) => {
    if (request.url === '/version') response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"version": "2.12.0"}\n');
  });
}

/** Accepts TCP connections and never says a word. */
export async function startSilentServer(): Promise<FakeServer> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
