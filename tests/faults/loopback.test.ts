import { isLoopbackUrl } from '../../src/faults/proxyProcess';

describe('the embedded proxy', () => {
  it('only ever starts the embedded proxy for a loopback API URL', () => {
    expect(['http://127.0.0.1:8474', 'http://localhost:8474', 'http://[::1]:8474'].map(isLoopbackUrl)).toEqual([true, true, true]);
    expect(['http://toxiproxy:8474', 'http://10.0.0.5:8474'].map(isLoopbackUrl)).toEqual([false, false]);
  });
});
