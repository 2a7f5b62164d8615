/** `bench proxy` options: where it listens by default. */
import { resolveProxyCommandOptions } from '../../src/cli/proxyCommand';

describe('bench proxy options', () => {
  it('takes its defaults from TOXIPROXY_URL', () => {
    expect(resolveProxyCommandOptions({}, 'http://127.0.0.1:8474')).toEqual({ host: '127.0.0.1', port: 8474 });
    expect(resolveProxyCommandOptions({}, 'http://[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(resolveProxyCommandOptions({ host: '0.0.0.0', port: '0' }, 'http://127.0.0.1:8474')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(() => resolveProxyCommandOptions({ port: '65536' }, 'http://127.0.0.1:8474')).toThrow('--port must be a port from 0 to 65535');
  }, 5_000);
});
