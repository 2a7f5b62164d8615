/**
 * `bench proxy [--host] [--port]` (`npm run proxy`): serves the embedded Toxiproxy-compatible
 * fault proxy until SIGINT/SIGTERM, then closes every listener, connection and timer.
 */
import type { Command } from 'commander';
import { getConfig } from '../config';
import { ConfigError } from '../errors';
import { startProxyServer } from '../proxy';

export interface ProxyCommandOptions {
  /** Address the API binds to. @default host of TOXIPROXY_URL (127.0.0.1) */
  readonly host: string;
  /** API port; 0 picks a free one. @default port of TOXIPROXY_URL (8474) */
  readonly port: number;
}

/** Resolves the command's options once, from argv over TOXIPROXY_URL. @throws ConfigError */
export function resolveProxyCommandOptions(argv: { host?: string; port?: string }, proxyApiUrl: string): ProxyCommandOptions {
  const fromUrl = new URL(proxyApiUrl);
  const host = argv.host ?? fromUrl.hostname.replace(/^\[|\]$/g, '');
  if (host.trim() === '') throw new ConfigError('--host', 'an address to bind (e.g. 127.0.0.1)', argv.host);
  const rawPort = argv.port ?? (fromUrl.port === '' ? '80' : fromUrl.port);
  if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) {
    throw new ConfigError('--port', 'a port from 0 to 65535 (0 picks a free one)', rawPort);
  }
  return Object.freeze({ host, port: Number(rawPort) });
}

export function registerProxyCommand(program: Command): void {
  program
    .command('proxy')
    .description('serve the embedded Toxiproxy-compatible fault proxy (HTTP API and proxies) until Ctrl-C')
    .option('--host <host>', 'address the API binds to (default: host of TOXIPROXY_URL)')
    .option('--port <port>', 'API port, 0 picks a free one (default: port of TOXIPROXY_URL)')
    .option('--exit-with-stdin', 'stop when standard input closes (how the harness ties a proxy it started to its own life)')
    .action(async (argv: { host?: string; port?: string; exitWithStdin?: boolean }) => {
      const options = resolveProxyCommandOptions(argv, getConfig().proxyApiUrl);
      const server = await startProxyServer(options);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
        // The parent holds the other end of the pipe: however it dies (even SIGKILL), we see EOF.
        if (argv.exitWithStdin) {
          process.stdin.on('end', stop);
          process.stdin.on('close', stop);
          process.stdin.resume();
        }
        // Only now: whoever reads this line may signal at once.
        process.stdout.write(`Toxiproxy-compatible fault proxy API listening on ${server.url} (Ctrl-C to stop)\n`);
      });
      await server.close();
      // A stdin still being read would keep this process alive after SIGTERM until the parent's
      // SIGKILL five seconds later (seen at the end of every run).
      process.stdin.destroy();
    });
}
