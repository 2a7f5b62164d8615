/**
 * What both amqplib adapters share: the installed version, the connection URL with a heartbeat,
 * the socket under a connection, and a polite close that never waits long.
 */
import fs from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import type { ChannelModel } from 'amqplib';

/** The installed version of an npm package (its package.json, found from its resolved entry). */
export function packageVersion(name: string): string {
  try {
    const entry = require.resolve(name);
    const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}`;
    const root = entry.slice(0, entry.lastIndexOf(marker) + marker.length);
    return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** `url` with `heartbeat=<seconds>` unless the URL sets one; unchanged when `heartbeatSeconds` is undefined (the library's default). */
export function withHeartbeat(url: string, heartbeatSeconds: number | undefined): string {
  if (heartbeatSeconds === undefined) return url;
  const parsed = new URL(url);
  if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', String(heartbeatSeconds));
  return parsed.toString();
}

/** The socket under an amqplib connection (not in its public types, but stable since 0.x). */
export function socketOf(model: ChannelModel | undefined): Socket | undefined {
  return (model?.connection as unknown as { stream?: Socket } | undefined)?.stream;
}

/** Closes a connection politely, but never waits more than `boundMs` (a dead peer never answers). */
export async function closeBounded(
  model: { close(): Promise<void> } | undefined,
  socket: Socket | undefined,
  boundMs = 1000,
): Promise<boolean> {
  if (!model) return true;
  let timer: NodeJS.Timeout | undefined;
  const closedInTime = await Promise.race([
    model.close().then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), boundMs);
    }),
  ]);
  clearTimeout(timer);
  socket?.destroy();
  return closedInTime;
}
