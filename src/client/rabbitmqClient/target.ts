/**
 * Where rabbitmq-client connects: the first URL gives the credentials, the vhost and TLS; with
 * several URLs, `hosts` lists every `hostname:port` and the library goes round them, one host
 * per connection attempt, starting with the first (`_connect`: `hostIndex` round-robin).
 */
import type { ConnectionOptions } from 'rabbitmq-client';
import { ConfigError } from '../../errors';
import { redactUrl } from '../../redact';

/** `url` (and `hosts` when there are several) for `new Connection(...)`. @throws ConfigError when the URLs cannot share one set of credentials */
export function connectionTarget(urls: readonly string[]): Pick<ConnectionOptions, 'url' | 'hosts'> {
  const [first, ...others] = urls;
  if (first === undefined) throw new ConfigError('ConnectOptions.urls', 'at least one amqp:// or amqps:// URL', '');
  if (others.length === 0) return { url: first };
  const reference = parse(first);
  const hosts = urls.map((url) => {
    const parsed = parse(url);
    // The library takes user, password, vhost and TLS once, from `url`, for every host.
    if (
      parsed.protocol !== reference.protocol ||
      parsed.username !== reference.username ||
      parsed.password !== reference.password ||
      parsed.pathname !== reference.pathname
    ) {
      throw new ConfigError(
        'ConnectOptions.urls',
        `URLs that differ only in host and port (rabbitmq-client uses the first URL's scheme, credentials and vhost for every host; ${redactUrl(first)})`,
        redactUrl(url),
      );
    }
    // The library splits `hosts` entries at ':', so an IPv6 literal would be cut in pieces.
    if (parsed.hostname.includes(':') || parsed.hostname.startsWith('[')) {
      throw new ConfigError(
        'ConnectOptions.urls',
        'host names or IPv4 addresses (rabbitmq-client cannot parse IPv6 literals in hosts)',
        redactUrl(url),
      );
    }
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'amqps:' ? '5671' : '5672')}`;
  });
  return { url: first, hosts };
}

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ConfigError('ConnectOptions.urls', 'amqp:// or amqps:// URLs', redactUrl(url));
  }
}
