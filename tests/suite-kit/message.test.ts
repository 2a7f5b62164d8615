import { decodeHeader, encodeMessage, HEADER_BYTES } from '../../src/suite-kit/message';

describe('workload message format', () => {
  it('round-trips the header and pads to the message size', () => {
    const header = { round: 3, seq: 4_000_000_001, sentNs: 123_456_789_012_345n, scheduledNs: 123_456_789_000_000n, paced: true };
    const body = encodeMessage(header, 256);
    expect(body.length).toBe(256);
    expect(decodeHeader(body)).toEqual(header);
    expect(body.subarray(HEADER_BYTES).every((byte) => byte === 0)).toBe(true);
  });

  it('never makes a message shorter than its header', () => {
    const body = encodeMessage({ round: 0, seq: 1, sentNs: 5n, scheduledNs: 5n, paced: false }, 1);
    expect(body.length).toBe(HEADER_BYTES);
    expect(decodeHeader(body)).toEqual({ round: 0, seq: 1, sentNs: 5n, scheduledNs: 5n, paced: false });
  });

  it('does not take other messages for workload messages', () => {
    expect(decodeHeader(Buffer.from('probe-1234'))).toBeUndefined();
    expect(decodeHeader(Buffer.alloc(64))).toBeUndefined();
  });

  it('rejects a sequence number that is not a uint32', () => {
    expect(() => encodeMessage({ round: 0, seq: 2 ** 32, sentNs: 0n, scheduledNs: 0n, paced: false }, 32)).toThrow(/out of range/);
  });
});
