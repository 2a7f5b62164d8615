/**
 * Broker passwords must never reach a report, an archive or a log. Everything that prints
 * or stores a URL goes through here. The password component is removed, not masked: a masked
 * `user:***@` still reads (and is found by checks) as a URL carrying a password.
 */

/** `amqp://guest:guest@host:5672/vh` -> `amqp://guest@host:5672/vh`. Non-URLs are cleaned as free text. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '';
    return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  } catch {
    return redactText(url);
  }
}

/**
 * Removes the password of every `scheme://user:password@` inside free text (error messages from
 * client libraries sometimes quote the URL they were given).
 */
export function redactText(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]+):[^@\s]*@/gi, '$1@');
}
