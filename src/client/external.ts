/**
 * Adapters from outside: a module in the user's project (`--clients ./bench/myClient.ts`,
 * BENCH_CLIENTS) whose default export — or export named `adapter` — is a ClientAdapter. Every
 * suite runs it exactly as a built-in one: the spec carries the module's absolute path, and each
 * process and worker thread that connects loads it from there. A TypeScript module is compiled on
 * load (esbuild); under Jest, Jest's own transform does it.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ConfigError } from '../errors';
import { packageRoot } from '../packageRoot';
import { CLIENT_PROFILES, SIGNAL_KINDS, type ClientAdapter, type ClientProfile } from './api';

/** `./x`, `../x`, `/abs/x`, `C:\x`, or a file name with a JS/TS extension: a module, not a client name. */
export function looksLikeAdapterModule(entry: string): boolean {
  return /^(\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/])/.test(entry) || /\.[cm]?[jt]s(:[a-z]+)?$/.test(entry);
}

/** `./x.ts:normalised` -> the path and the profile (a suffix that names no profile stays part of the path). */
export function splitAdapterEntry(entry: string): { readonly modulePath: string; readonly profile?: ClientProfile } {
  const colon = entry.lastIndexOf(':');
  const suffix = colon > 1 ? entry.slice(colon + 1) : '';
  return (CLIENT_PROFILES as readonly string[]).includes(suffix)
    ? { modulePath: entry.slice(0, colon), profile: suffix as ClientProfile }
    : { modulePath: entry };
}

const loaded = new Map<string, ClientAdapter>();

/**
 * The adapter the module at `modulePath` (absolute) exports; its name must not be one of
 * `builtInNames` (src/client/registry.ts's `loadClientModule` passes the registry's).
 * @throws ConfigError saying what is wrong with the module, in plain words
 */
export function loadAdapterModule(modulePath: string, builtInNames: readonly string[], setting = '--clients'): ClientAdapter {
  const cached = loaded.get(modulePath);
  if (cached) return cached;
  if (!fs.existsSync(modulePath)) throw new ConfigError(setting, 'a client name or the path of an adapter module that exists', modulePath);
  if (/\.[cm]?ts$/.test(modulePath)) compileTypeScriptOnLoad();
  let exported: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the user's module, found at run time
    exported = require(modulePath) as unknown;
  } catch (error) {
    throw new ConfigError(setting, `an adapter module that loads (it threw: ${(error as Error).message})`, modulePath);
  }
  const record = (exported ?? {}) as Record<string, unknown>;
  const adapter = record.default ?? record.adapter ?? exported;
  const problems = adapterShapeProblems(adapter, builtInNames);
  if (problems.length > 0)
    throw new ConfigError(setting, `a module whose default export (or \`adapter\`) is a ClientAdapter: ${problems.join('; ')}`, modulePath);
  loaded.set(modulePath, adapter as ClientAdapter);
  return adapter as ClientAdapter;
}

/** What keeps `value` from being a ClientAdapter the harness can run beside the built-in clients (empty: nothing). */
export function adapterShapeProblems(value: unknown, builtInNames: readonly string[]): string[] {
  if (typeof value !== 'object' || value === null) return ['nothing that looks like an adapter is exported'];
  const adapter = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof adapter.name !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/.test(adapter.name))
    problems.push('`name` must be a short lowercase name (letters, digits, . _ -), how reports name the client');
  else if (builtInNames.includes(adapter.name)) problems.push(`\`name\` "${adapter.name}" is a built-in client's; give yours its own name`);
  if (typeof adapter.library !== 'string' || adapter.library === '') problems.push('`library` must name the npm package measured');
  if (typeof adapter.multipleHosts !== 'boolean') problems.push('`multipleHosts` must be true or false');
  if (adapter.recovery !== 'library' && adapter.recovery !== 'harness') problems.push('`recovery` must be "library" or "harness"');
  const signals = adapter.signals as Record<string, unknown> | undefined;
  const missing = SIGNAL_KINDS.filter((kind) => typeof signals?.[kind] !== 'string');
  if (missing.length > 0)
    problems.push(
      `\`signals\` must say, for each of ${SIGNAL_KINDS.join(', ')}, how the library gives it (missing: ${missing.join(', ')})`,
    );
  if (typeof adapter.settings !== 'function') problems.push('`settings(profile)` must be a function');
  if (typeof adapter.connect !== 'function') problems.push('`connect(profile, options)` must be a function');
  if (
    adapter.profiles !== undefined &&
    (!Array.isArray(adapter.profiles) || adapter.profiles.some((one) => !(CLIENT_PROFILES as readonly unknown[]).includes(one)))
  )
    problems.push(`\`profiles\`, when given, must list some of ${CLIENT_PROFILES.join(', ')}`);
  if (adapter.version !== undefined && typeof adapter.version !== 'string') problems.push('`version`, when given, must be a string');
  return problems;
}

/**
 * The installed version of `library`, resolved from `fromFile`'s folder (the user's project for an
 * adapter from outside, this harness otherwise); `unknown` when it cannot be found.
 */
export function libraryVersion(library: string, fromFile: string = __filename): string {
  try {
    const entry = createRequire(fromFile).resolve(library);
    const marker = `${path.sep}node_modules${path.sep}${library.split('/').join(path.sep)}`;
    const root = entry.slice(0, entry.lastIndexOf(marker) + marker.length);
    return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Node loads no TypeScript by itself: lib/register.js has esbuild compile `.ts` files on load
 * (once per process; Jest transforms them itself). Found from the package root at run time: in a
 * worker thread's bundle this file's own folder is .cache/workers/.
 */
function compileTypeScriptOnLoad(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path known only at run time
  require(path.join(packageRoot(), 'lib', 'register.js'));
}
