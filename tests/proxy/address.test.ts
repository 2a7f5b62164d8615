/** host:port parsing and printing as Go's net package does it (Toxiproxy's listen/upstream). */
import { formatBoundAddress, parseTcpAddress } from '../../src/proxy/address';

describe('parseTcpAddress', () => {
  it.each([
    ['127.0.0.1:8474', { host: '127.0.0.1', port: 8474 }],
    [':25672', { host: undefined, port: 25672 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['localhost:5672', { host: 'localhost', port: 5672 }],
    ['', { host: undefined, port: 0 }],
  ])(
    'reads %s',
    (text, expected) => {
      expect(parseTcpAddress(text)).toEqual(expected);
    },
    5_000,
  );

  it.each([
    ['localhost', 'address localhost: missing port in address'],
    ['::1:80', 'address ::1:80: too many colons in address'],
    ['[::1', "address [::1: missing ']' in address"],
    ['host:http', 'lookup tcp/http: unknown port'],
    ['host:70000', 'address host:70000: invalid port'],
  ])(
    'refuses %s as Go does',
    (text, error) => {
      expect(parseTcpAddress(text)).toEqual({ error });
    },
    5_000,
  );

  it('prints bound addresses as Go prints listener.Addr()', () => {
    expect(formatBoundAddress({ address: '127.0.0.1', family: 'IPv4', port: 1 })).toBe('127.0.0.1:1');
    expect(formatBoundAddress({ address: '::', family: 'IPv6', port: 2 })).toBe('[::]:2');
  }, 5_000);
});
