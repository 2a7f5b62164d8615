/**
 * One proxied client connection: the accepted client socket, the socket dialled to the
 * upstream, and the two links between them. Lifecycle: `connecting` (client paused until the
 * upstream answers, as Toxiproxy dials before it reads) -> `open` -> `closed` (both sockets
 * closed, timers cleared, record closed on the timeline).
 */
import net, { type Socket } from 'node:net';
import { formatPeer, parseTcpAddress } from './address';
import type { AmqpFrameEvent } from './amqpFrames';
import { Link, type LinkHost, type LinkOptions } from './link';
import type { CloseReason, ConnectionRecord, FaultTimeline } from './timeline';
import type { Toxic } from './toxic';
import type { FaultEventKind, StreamDirection } from './toxics/types';

/** What a connection needs from its proxy. */
export interface ConnectionHost {
  readonly timeline: FaultTimeline;
  readonly linkOptions: LinkOptions;
  /** The toxics of a direction at this moment, in insertion order. */
  toxicsFor(direction: StreamDirection): readonly Toxic[];
  connectionClosed(connection: ProxyConnection): void;
}

type ConnectionState = 'connecting' | 'open' | 'closed';

export class ProxyConnection {
  readonly record: ConnectionRecord;
  private state: ConnectionState = 'connecting';
  private readonly upstream: Socket;
  private links: Readonly<Record<StreamDirection, Link>> | undefined;
  private openSockets = 2;

  constructor(
    id: number,
    private readonly client: Socket,
    upstreamAddress: string,
    private readonly host: ConnectionHost,
  ) {
    this.record = {
      id,
      client: formatPeer(client.remoteAddress, client.remotePort),
      upstream: upstreamAddress,
      openedAtNs: process.hrtime.bigint(),
      upstreamConnectedAtNs: undefined,
      closedAtNs: undefined,
      closeReason: undefined,
      closeError: undefined,
      bytesUpstream: 0,
      bytesDownstream: 0,
    };
    host.timeline.openConnection(this.record);
    this.upstream = this.dial(upstreamAddress);
    for (const [socket, side] of [
      [client, 'client'],
      [this.upstream, 'upstream'],
    ] as const) {
      // Go's TCP connections have Nagle off; without this every small frame waits for an ACK.
      socket.setNoDelay(true);
      // The first side to end, fail or close is the one that closed the connection.
      const reason = side === 'client' ? 'client_closed' : 'upstream_closed';
      socket.on('end', () => this.noteClose(reason));
      socket.on('error', (error) => this.noteClose(reason, error));
      socket.on('close', () => this.onSocketClosed(side));
    }
  }

  /** A toxic added to the proxy reaches this connection. */
  attach(toxic: Toxic): void {
    this.links?.[toxic.direction].attach(toxic);
  }

  update(toxic: Toxic, toxicityChanged: boolean): void {
    this.links?.[toxic.direction].update(toxic, toxicityChanged);
  }

  detach(toxic: Toxic): void {
    this.links?.[toxic.direction].detach(toxic);
  }

  /** The proxy is disabled or deleted: close both sides now (what is queued is dropped). */
  stop(): void {
    this.noteClose('proxy_stopped');
    this.links?.upstream.dispose();
    this.links?.downstream.dispose();
    this.client.destroy();
    this.upstream.destroy();
  }

  /** Copies the live byte counts into the record (for listing open connections). */
  refreshRecord(): void {
    this.record.bytesUpstream = this.links?.upstream.bytesIn ?? 0;
    this.record.bytesDownstream = this.links?.downstream.bytesIn ?? 0;
  }

  private recordEvent(
    toxic: Toxic,
    kind: FaultEventKind,
    detail: Readonly<Record<string, number | string>> = {},
    atNs = process.hrtime.bigint(),
  ): void {
    this.host.timeline.record({
      atNs,
      toxic: toxic.name,
      toxicType: toxic.type,
      stream: toxic.direction,
      connectionId: this.record.id,
      kind,
      detail,
    });
  }

  /** An AMQP frame on the timeline: no toxic's doing, so toxic and type are empty. */
  private recordFrame(direction: StreamDirection, frame: AmqpFrameEvent, atNs: bigint): void {
    const detail: Record<string, number | string> = { method: frame.method, channel: frame.channel };
    if (frame.replyCode !== undefined) detail.reply_code = frame.replyCode;
    if (frame.replyText !== undefined) detail.reply_text = frame.replyText;
    if (frame.reason !== undefined) detail.reason = frame.reason;
    this.host.timeline.record({
      atNs,
      toxic: '',
      toxicType: '',
      stream: direction,
      connectionId: this.record.id,
      kind: 'amqp_frame',
      detail,
    });
  }

  /** True RST to both peers, the client first (its detection is what benchmarks time). */
  private reset(toxic: Toxic): void {
    if (this.state === 'closed' || this.client.destroyed) return;
    this.noteClose('reset_peer');
    this.links?.upstream.dispose();
    this.links?.downstream.dispose();
    // Stamped just before the syscall: the RST cannot reach the client earlier, so a detection
    // timed from here is never negative (a stamp taken after it could be, under preemption).
    const sentAtNs = process.hrtime.bigint();
    this.client.resetAndDestroy();
    if (!this.upstream.destroyed) this.upstream.resetAndDestroy();
    this.recordEvent(toxic, 'reset_sent', {}, sentAtNs);
  }

  private dial(upstreamAddress: string): Socket {
    const endpoint = parseTcpAddress(upstreamAddress);
    if ('error' in endpoint) {
      // Toxiproxy closes the client when the upstream cannot be dialled; so do we.
      const socket = new net.Socket();
      queueMicrotask(() => socket.destroy(new Error(`dial tcp ${upstreamAddress}: ${endpoint.error}`)));
      return this.watchDial(socket);
    }
    const socket = net.connect({ host: endpoint.host ?? 'localhost', port: endpoint.port, allowHalfOpen: true });
    return this.watchDial(socket);
  }

  private watchDial(socket: Socket): Socket {
    socket.once('connect', () => this.onUpstreamConnected());
    socket.once('error', (error) => {
      if (this.state !== 'connecting') return;
      this.noteClose('upstream_unreachable', error);
      this.client.destroy();
    });
    return socket;
  }

  private onUpstreamConnected(): void {
    if (this.state !== 'connecting') return;
    this.state = 'open';
    this.record.upstreamConnectedAtNs = process.hrtime.bigint();
    const host: LinkHost = {
      record: (toxic, kind, detail) => this.recordEvent(toxic, kind, detail),
      reset: (toxic) => this.reset(toxic),
      frame: (direction, frame, atNs) => this.recordFrame(direction, frame, atNs),
    };
    const options = this.host.linkOptions;
    this.links = {
      upstream: new Link('upstream', this.client, this.upstream, host, options, this.host.toxicsFor('upstream')),
      downstream: new Link('downstream', this.upstream, this.client, host, options, this.host.toxicsFor('downstream')),
    };
    this.client.resume(); // accepted paused (pauseOnConnect) until now
  }

  private noteClose(reason: CloseReason, error?: Error): void {
    this.record.closeReason ??= reason;
    if (error && this.record.closeError === undefined) this.record.closeError = error.message;
  }

  private onSocketClosed(side: 'client' | 'upstream'): void {
    this.noteClose(side === 'client' ? 'client_closed' : 'upstream_closed');
    if (this.state === 'connecting' && side === 'client') this.upstream.destroy();
    // The direction reading from this socket has nothing more to read.
    this.links?.[side === 'client' ? 'upstream' : 'downstream'].endOfSource();
    this.openSockets -= 1;
    if (this.openSockets > 0) return;
    this.state = 'closed';
    this.record.closedAtNs = process.hrtime.bigint();
    this.refreshRecord();
    this.links?.upstream.dispose();
    this.links?.downstream.dispose();
    this.host.timeline.closeConnection(this.record);
    this.host.connectionClosed(this);
  }
}
