/**
 * Wire format of a realistic-workload message: a fixed 32-byte header, then zero padding up to
 * the message size. The header carries what the consumers need to account for every message
 * without any lookup: the round, the global sequence number and two times.
 *
 * | offset | field | type |
 * |---|---|---|
 * | 0 | magic `AMQB` | uint32 BE |
 * | 4 | round | uint32 LE |
 * | 8 | sequence number (global, unique within a run) | uint32 LE |
 * | 12 | flags (bit 0: paced) | uint32 LE |
 * | 16 | publish time, `process.hrtime.bigint()` ns | int64 LE |
 * | 24 | scheduled publish time (paced rounds; else the publish time) | int64 LE |
 *
 * The publish time is taken by the producer thread just before `publish`; the clock is the same
 * in every thread, so `receiveNs - sentNs` in a consumer thread is the end-to-end latency. In a
 * paced round, `receiveNs - scheduledNs` also counts the time the producer could not send (e.g.
 * while reconnecting), which the first figure hides (coordinated omission).
 */

export const HEADER_BYTES = 32;
const PACED = 1;
const MAGIC = 0x414d5142; // "AMQB"

export interface MessageHeader {
  readonly round: number;
  readonly seq: number;
  readonly sentNs: bigint;
  /** When a paced producer meant to send it; equal to `sentNs` when not paced. */
  readonly scheduledNs: bigint;
  readonly paced: boolean;
}

/**
 * A message of `sizeBytes` (at least the header) carrying `header`.
 * @throws RangeError when round or seq is not a uint32.
 */
export function encodeMessage(header: MessageHeader, sizeBytes: number): Buffer {
  const body = Buffer.alloc(Math.max(HEADER_BYTES, sizeBytes));
  body.writeUInt32BE(MAGIC, 0);
  body.writeUInt32LE(header.round, 4);
  body.writeUInt32LE(header.seq, 8);
  body.writeUInt32LE(header.paced ? PACED : 0, 12);
  body.writeBigInt64LE(header.sentNs, 16);
  body.writeBigInt64LE(header.scheduledNs, 24);
  return body;
}

/** The header of a workload message; `undefined` for anything else (too short, wrong magic). */
export function decodeHeader(body: Buffer): MessageHeader | undefined {
  if (body.length < HEADER_BYTES || body.readUInt32BE(0) !== MAGIC) return undefined;
  return {
    round: body.readUInt32LE(4),
    seq: body.readUInt32LE(8),
    sentNs: body.readBigInt64LE(16),
    scheduledNs: body.readBigInt64LE(24),
    paced: (body.readUInt32LE(12) & PACED) !== 0,
  };
}
