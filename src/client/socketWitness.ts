/**
 * The TCP sockets a library opens for one connection under test, for a library that keeps its
 * socket to itself (no public handle to its amqplib connection): Node announces every client
 * socket on the diagnostics channel `net.client.socket` as `net.connect` creates it, and an
 * AsyncLocalStorage started around the library's first connect follows every later one the
 * library makes from that connection's events and timers (its reconnections). Only watched:
 * the socket's local port (the proxy's record of the client side) and, for a chaos kill or a
 * deadline, a destroy as a network fault would; never used to recover anything.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const owners = new AsyncLocalStorage<SocketWitness>();
let subscribed = false;

function onClientSocket(message: unknown): void {
  const socket = (message as { socket?: Socket } | null)?.socket;
  if (socket !== undefined) owners.getStore()?.saw(socket);
}

export class SocketWitness {
  private latest: Socket | undefined;
  private readonly all = new Set<Socket>();

  /** Runs `start` (the library's first connect) so that every socket it and its aftermath open is this witness's. */
  run<T>(start: () => T): T {
    if (!subscribed) {
      diagnosticsChannel.subscribe('net.client.socket', onClientSocket);
      subscribed = true;
    }
    return owners.run(this, start);
  }

  /** Runs a harness callback (a listener, a delivery) outside every witness: sockets it opens are not the library's. */
  static outside<T>(callback: () => T): T {
    return owners.exit(callback);
  }

  /** The socket the library opened last (its current connection, or its last attempt while down). */
  get socket(): Socket | undefined {
    return this.latest;
  }

  /** Every socket still open (a connection completed after the library's close, say). */
  get open(): Socket[] {
    return [...this.all].filter((socket) => !socket.destroyed);
  }

  saw(socket: Socket): void {
    this.latest = socket;
    this.all.add(socket);
    socket.once('close', () => this.all.delete(socket));
  }
}
