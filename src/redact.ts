/**
 * Broker passwords must never reach a report, an archive or a log. Everything that prints
 * or stores a URL goes through here.
 */

/** `amqp://guest:guest@host:5672/vh` -> `amqp://guest:***@host:5672/vh`. Non-URLs pass through masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  } catch {
    // Not a URL: still mask anything that looks like user:password@.
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/**
 * Masks every `scheme://user:password@` occurrence inside free text (error messages from
 * client libraries sometimes quote the URL they were given).
 */
export function redactText(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]+):[^@\s]*@/gi, '$1:***@');
}
