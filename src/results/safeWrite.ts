/**
 * Every file the pipeline writes goes through here: atomically (src/io/atomicFile.ts) and with
 * passwords masked (src/redact.ts), whatever string they hide in (an error message quoting the
 * broker URL, a note, a chart label).
 */
import { createFileExclusively, writeFileAtomic } from '../io/atomicFile';
import { redactDeep, redactSecrets } from '../redact';

/** Writes `text` atomically after masking passwords. */
export function writeTextSafely(filePath: string, text: string, secrets: readonly string[] = []): void {
  writeFileAtomic(filePath, redactSecrets(text, secrets));
}

/** Writes `value` as pretty JSON, atomically, passwords masked. */
export function writeJsonSafely(filePath: string, value: unknown, secrets: readonly string[] = []): void {
  writeFileAtomic(filePath, `${JSON.stringify(redactDeep(value, secrets), null, 2)}\n`);
}

/**
 * Creates `filePath` only if it does not exist yet, never visible half written. Returns false
 * when the name is taken.
 */
export function createJsonExclusively(filePath: string, value: unknown, secrets: readonly string[] = []): boolean {
  return createFileExclusively(filePath, `${JSON.stringify(redactDeep(value, secrets), null, 2)}\n`);
}
