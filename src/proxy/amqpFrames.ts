/**
 * The AMQP 0-9-1 frames that matter to a fault, read as they pass the proxy (an extension
 * Toxiproxy lacks): connection.close, channel.close, basic.cancel, basic.consume (and its -ok) and
 * connection.blocked / unblocked, each recorded on the fault timeline with the moment the proxy read it, so a
 * broker-side fault is timed as exactly as an RST (and connection.start: the moment a node serves a
 * connection again after a restart). The scanner only walks frame headers (7 bytes,
 * then skips the payload), so it costs next to nothing on the data path; it never changes a byte.
 *
 * A stream that is not AMQP (or that the scanner loses track of: a frame end that is not 0xCE)
 * is left alone from then on.
 */

/** Class and method ids (AMQP 0-9-1) of the frames recorded, and their names. */
const RECORDED_METHODS: ReadonlyMap<number, string> = new Map([
  // The broker's first word on a new connection: a node serving again after a restart.
  [(10 << 16) | 10, 'connection.start'],
  [(10 << 16) | 50, 'connection.close'],
  [(10 << 16) | 51, 'connection.close-ok'],
  [(10 << 16) | 60, 'connection.blocked'],
  [(10 << 16) | 61, 'connection.unblocked'],
  [(20 << 16) | 40, 'channel.close'],
  [(20 << 16) | 41, 'channel.close-ok'],
  [(60 << 16) | 30, 'basic.cancel'],
  // A client's consume (and the broker's answer): what a library does about a cancelled consumer.
  [(60 << 16) | 20, 'basic.consume'],
  [(60 << 16) | 21, 'basic.consume-ok'],
]);

/** Methods whose arguments start with reply-code (short) and reply-text (shortstr). */
const CLOSES: ReadonlySet<string> = new Set(['connection.close', 'channel.close']);

export interface AmqpFrameEvent {
  readonly method: string;
  readonly channel: number;
  /** connection.close / channel.close: the reply code (320, 404, 406, ...). */
  readonly replyCode?: number;
  readonly replyText?: string;
  /** connection.blocked: the reason the broker gave. */
  readonly reason?: string;
}

const FRAME_HEADER_BYTES = 7;
const FRAME_END = 0xce;
const METHOD_FRAME = 1;
/** Bytes of a method payload kept to read its arguments: ids (4) + reply-code (2) + shortstr (1 + 255). */
const KEPT_ARGUMENT_BYTES = 262;
const PROTOCOL_HEADER = Buffer.from('AMQP', 'latin1');

const Phase = { ProtocolHeader: 0, Header: 1, Payload: 2, End: 3, Lost: 4 } as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * One direction of one connection. `clientSide`: the client's stream starts with the 8-byte
 * protocol header. Plain fields, no object per frame: this runs on every chunk the proxy passes.
 */
export class AmqpFrameScanner {
  private phase: Phase;
  /** Bytes still to skip in the protocol header or the payload. */
  private remaining: number;
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES);
  private headerBytes = 0;
  private frameType = 0;
  private channel = 0;
  /** The start of a method frame's payload (its ids and first arguments). */
  private readonly kept = Buffer.alloc(KEPT_ARGUMENT_BYTES);
  private keptBytes = 0;

  constructor(
    clientSide: boolean,
    private readonly onFrame: (frame: AmqpFrameEvent) => void,
  ) {
    this.phase = clientSide ? Phase.ProtocolHeader : Phase.Header;
    this.remaining = clientSide ? 8 : 0;
  }

  /** Reads the next bytes of the stream (in order). */
  scan(data: Buffer): void {
    let offset = 0;
    while (offset < data.length) {
      switch (this.phase) {
        case Phase.Lost:
          return;
        case Phase.ProtocolHeader: {
          if (this.remaining === 8 && offset === 0 && data.length >= 4 && data.compare(PROTOCOL_HEADER, 0, 4, 0, 4) !== 0) {
            this.phase = Phase.Lost;
            return;
          }
          const taken = Math.min(this.remaining, data.length - offset);
          this.remaining -= taken;
          offset += taken;
          if (this.remaining === 0) this.phase = Phase.Header;
          break;
        }
        case Phase.Header: {
          const taken = Math.min(FRAME_HEADER_BYTES - this.headerBytes, data.length - offset);
          data.copy(this.header, this.headerBytes, offset, offset + taken);
          this.headerBytes += taken;
          offset += taken;
          if (this.headerBytes < FRAME_HEADER_BYTES) return;
          this.headerBytes = 0;
          this.frameType = this.header.readUInt8(0);
          this.channel = this.header.readUInt16BE(1);
          this.remaining = this.header.readUInt32BE(3);
          this.keptBytes = 0;
          this.phase = Phase.Payload;
          break;
        }
        case Phase.Payload: {
          const taken = Math.min(this.remaining, data.length - offset);
          if (this.frameType === METHOD_FRAME && this.keptBytes < KEPT_ARGUMENT_BYTES) {
            const copied = Math.min(taken, KEPT_ARGUMENT_BYTES - this.keptBytes);
            data.copy(this.kept, this.keptBytes, offset, offset + copied);
            this.keptBytes += copied;
          }
          this.remaining -= taken;
          offset += taken;
          if (this.remaining === 0) this.phase = Phase.End;
          break;
        }
        case Phase.End: {
          if (data[offset] !== FRAME_END) {
            this.phase = Phase.Lost;
            return;
          }
          offset += 1;
          this.phase = Phase.Header;
          if (this.frameType === METHOD_FRAME) this.method(this.channel, this.kept.subarray(0, this.keptBytes));
          break;
        }
      }
    }
  }

  private method(channel: number, payload: Buffer): void {
    if (payload.length < 4) return;
    const method = RECORDED_METHODS.get((payload.readUInt16BE(0) << 16) | payload.readUInt16BE(2));
    if (method === undefined) return;
    if (CLOSES.has(method) && payload.length >= 7) {
      const textBytes = payload.readUInt8(6);
      this.onFrame({
        method,
        channel,
        replyCode: payload.readUInt16BE(4),
        replyText: payload.toString('utf8', 7, Math.min(payload.length, 7 + textBytes)),
      });
    } else if (method === 'connection.blocked' && payload.length >= 5) {
      this.onFrame({ method, channel, reason: payload.toString('utf8', 5, Math.min(payload.length, 5 + payload.readUInt8(4))) });
    } else {
      this.onFrame({ method, channel });
    }
  }
}
