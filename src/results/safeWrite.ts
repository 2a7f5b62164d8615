/**
 * Every file the pipeline writes goes through here: atomically (temp file + rename) and with
 * passwords masked, whatever string they hide in (an error message quoting the broker URL, a
 * note, a chart label).
 */
import fs from 'node:fs';
import { redactText } from '../redact';
import { writeFileAtomic } from './rawResult';

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

/** Writes `text` atomically after masking passwords. */
export function writeTextSafely(filePath: string, text: string, secrets: readonly string[] = []): void {
  writeFileAtomic(filePath, redactSecrets(text, secrets));
}

/** Writes `value` as pretty JSON, atomically, passwords masked. */
export function writeJsonSafely(filePath: string, value: unknown, secrets: readonly string[] = []): void {
  writeFileAtomic(filePath, `${JSON.stringify(redactDeep(value, secrets), null, 2)}\n`);
}

/**
 * Creates `filePath` only if it does not exist yet (O_EXCL), through a temp file and a hard
 * link so readers never see it half written. Returns false when the name is taken.
 */
export function createJsonExclusively(filePath: string, value: unknown, secrets: readonly string[] = []): boolean {
  const temp = `${filePath}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(redactDeep(value, secrets), null, 2)}\n`, { flag: 'wx' });
  try {
    fs.linkSync(temp, filePath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
