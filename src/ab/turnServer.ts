/**
 * The coordinator of a paired run's turns (`bench ab`): a local socket the two sides' benchmark
 * processes ask before each test and replicate (turnClient.ts), answered in the order of the turn
 * schedule (turnSchedule.ts). One line of JSON each way: `{"side":"A","kind":"turn","label":"…"}`,
 * answered `{"go":true}` when the side may go on (or `{"error":"…"}`), then the connection closes.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TurnSchedule, type Side, type TurnGrant } from './turnSchedule';

export interface TurnServer {
  /** Where the sides connect (BENCH_AB_TURNS). */
  readonly socketPath: string;
  readonly schedule: TurnSchedule;
  /** The side's process is gone (it will never ask again). */
  exited(side: Side): void;
  /** Stops listening; safe to call twice. */
  close(): Promise<void>;
}

export interface TurnServerOptions {
  /** Called with each turn granted (progress lines). */
  readonly onGrant?: (grant: TurnGrant) => void;
  /** A side's request the schedule refused (a defect of that side's harness). */
  readonly onError?: (message: string) => void;
}

interface TurnRequestLine {
  readonly side: Side;
  readonly kind: 'turn' | 'end';
  readonly label: string;
}

/** Starts a coordinator on a fresh socket under the system's temp folder. */
export async function startTurnServer(options: TurnServerOptions = {}): Promise<TurnServer> {
  const socketPath = path.join(os.tmpdir(), `amqp-bench-ab-${process.pid}-${Math.random().toString(36).slice(2, 8)}.sock`);
  const schedule = new TurnSchedule();
  let granted = 0;
  const report = () => {
    const grants = schedule.grants();
    for (; granted < grants.length; granted += 1) options.onGrant?.(grants[granted]!);
  };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      const answer = (line: object) => socket.end(`${JSON.stringify(line)}\n`);
      try {
        const request = parseRequest(buffer.slice(0, end));
        schedule.request(request.side, request.kind, request.label, () => answer({ go: true }));
        report();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        options.onError?.(message);
        answer({ error: message });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  let closing: Promise<void> | undefined;
  return {
    socketPath,
    schedule,
    exited: (side) => {
      schedule.exited(side);
      report();
    },
    close: () => {
      // A side still waiting for a turn is told so by its connection closing (its test then fails).
      for (const socket of sockets) socket.destroy();
      return (closing ??= new Promise<void>((resolve) => server.close(() => resolve())).finally(() =>
        fs.rmSync(socketPath, { force: true }),
      ));
    },
  };
}

function parseRequest(line: string): TurnRequestLine {
  const parsed = JSON.parse(line) as Partial<TurnRequestLine>;
  if ((parsed.side !== 'A' && parsed.side !== 'B') || (parsed.kind !== 'turn' && parsed.kind !== 'end') || typeof parsed.label !== 'string')
    throw new Error(`a turn request must be {"side": "A"|"B", "kind": "turn"|"end", "label": string}; got ${line.slice(0, 200)}`);
  return parsed as TurnRequestLine;
}
