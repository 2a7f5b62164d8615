/**
 * Broker passwords must never reach a report, an archive or a log. Everything that prints
 * or stores a URL, or writes text that might quote one, goes through here (the one place). The password component is removed, not masked: a masked
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

/**
 * Literal secrets to mask besides `scheme://user:password@` patterns: the broker password, when
 * it cannot be confused with ordinary words (at least 4 characters, not equal to the user name;
 * guest/guest is masked by the URL pattern alone).
 */
export function secretsOf(amqpUrl: string | undefined): readonly string[] {
  if (!amqpUrl) return [];
  try {
    const url = new URL(amqpUrl);
    const password = decodeURIComponent(url.password);
    return password.length >= 4 && password !== decodeURIComponent(url.username) ? [password] : [];
  } catch {
    return [];
  }
}

/** Masks passwords in free text. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let masked = redactText(text);
  for (const secret of secrets) masked = masked.split(secret).join('***');
  return masked;
}

/** A deep copy of `value` with every string (keys included) masked. */
export function redactDeep<T>(value: T, secrets: readonly string[] = []): T {
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item, secrets)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactSecrets(key, secrets), redactDeep(item, secrets)])) as T;
  }
  return value;
}
