/**
 * Environment capture and the fingerprint that says whether two runs are comparable.
 *
 * Fingerprint rule (the product's definition, so every tool computes it alike): the first 8 hex characters of the MD5 of the UTF-8
 * string `git_commit:git_dirty:node_version:platform`, each value exactly as stored in the
 * record (git_dirty as `true`/`false`). `npm run --silent env` prints the record so anyone
 * can recompute it: `printf '%s' 'abc:false:v20.20.2:linux-x64' | md5sum | cut -c1-8`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import amqp from 'amqplib';
import { workDir, type EmbeddedProxyMode, type ProxyScope } from './config';
import { ToxiproxyClient } from './faults/toxiproxyClient';
import { TOXIPROXY_COMPATIBLE_VERSION } from './proxy/server';
import { redactUrl } from './redact';
import type { DeepReadonly } from './results/deepReadonly';
import type * as Schema from './schemaTypes';

export const ENVIRONMENT_SCHEMA_VERSION = 1;

/** The record as the run archive describes it (schemas/run-archive.schema.json, generated type), read-only. */
export type EnvironmentRecord = DeepReadonly<Schema.EnvironmentRecord>;

/** The four fields the fingerprint is computed from. */
export type FingerprintFields = Pick<EnvironmentRecord, 'git_commit' | 'git_dirty' | 'node_version' | 'platform'>;

/** First 8 hex characters of MD5(`git_commit:git_dirty:node_version:platform`). */
export function computeFingerprint(fields: FingerprintFields): string {
  const input = [fields.git_commit, String(fields.git_dirty), fields.node_version, fields.platform].join(':');
  return createHash('md5').update(input, 'utf8').digest('hex').slice(0, 8);
}

export interface GitState {
  readonly commit: string;
  readonly dirty: boolean;
}

/** Reads the commit and dirtiness of `cwd`; outside a git checkout (or without git) gives `unknown`/false. */
export function readGitState(cwd: string = workDir()): GitState {
  const git = (args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
  try {
    const commit = git(['rev-parse', '--verify', 'HEAD']);
    // --no-optional-locks: status must not rewrite the index (taking .git/index.lock). A run killed
    // in that instant would leave the lock behind, and the user's next commit would fail.
    const dirty = git(['--no-optional-locks', 'status', '--porcelain']) !== '';
    return { commit, dirty };
  } catch {
    // Not a checkout, no commit yet, or no git binary: still a valid environment.
    return { commit: 'unknown', dirty: false };
  }
}

/** The version of the amqplib package actually installed. */
export function readAmqplibVersion(): string {
  try {
    // The exports map blocks deep imports, so find package.json next to the resolved entry.
    const entry = require.resolve('amqplib');
    const pkgPath = entry.slice(0, entry.lastIndexOf('node_modules/amqplib') + 'node_modules/amqplib'.length) + '/package.json';
    return (JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Asks the broker its version (server properties of a fresh connection); null when unreachable. */
export async function readRabbitmqVersion(amqpUrl: string, timeoutMs = 3000): Promise<string | null> {
  let connection: amqp.ChannelModel | undefined;
  try {
    connection = await amqp.connect(amqpUrl, { timeout: timeoutMs });
    const version = connection.connection.serverProperties?.version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/** Which fault proxy serves `apiUrl` (each probe bounded by `timeoutMs`). */
export async function readFaultProxy(
  apiUrl: string,
  embeddedProxy: EmbeddedProxyMode,
  timeoutMs = 1000,
): Promise<{ kind: 'embedded' | 'toxiproxy' | null; version: string | null }> {
  try {
    const identity = await new ToxiproxyClient(apiUrl, { timeoutMs }).identify();
    return { kind: identity.kind, version: identity.version };
  } catch {
    // Nothing answers: in `auto` mode on this machine the harness starts the embedded proxy there.
    const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(apiUrl).hostname);
    return embeddedProxy === 'auto' && loopback
      ? { kind: 'embedded', version: TOXIPROXY_COMPATIBLE_VERSION }
      : { kind: null, version: null };
  }
}

export interface CaptureOptions {
  /** Where to read git state from. @default the project root */
  readonly cwd?: string;
  /** Broker to ask for its version; omit to skip the broker. */
  readonly amqpUrl?: string;
  /**
   * The fault proxy API to identify (and whether the harness would start the embedded one there);
   * with scope `own` the run's own embedded proxy, which is not asked (it starts later, on a free port). Omit to skip it.
   */
  readonly faultProxy?: { readonly apiUrl: string; readonly embeddedProxy: EmbeddedProxyMode; readonly scope: ProxyScope };
  readonly now?: () => Date;
}

/** Captures the environment of this process. Never throws for a missing git or broker. */
export async function captureEnvironment(options: CaptureOptions = {}): Promise<EnvironmentRecord> {
  const git = readGitState(options.cwd);
  const cpus = os.cpus();
  const fields: FingerprintFields = {
    git_commit: git.commit,
    git_dirty: git.dirty,
    node_version: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
  return Object.freeze({
    schema_version: ENVIRONMENT_SCHEMA_VERSION,
    ...fields,
    arch: process.arch,
    os_release: os.release(),
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    cpu_count: cpus.length,
    total_memory_bytes: os.totalmem(),
    amqplib_version: readAmqplibVersion(),
    rabbitmq_version: options.amqpUrl ? await readRabbitmqVersion(options.amqpUrl) : null,
    broker_url: options.amqpUrl ? redactUrl(options.amqpUrl) : '',
    captured_at: (options.now?.() ?? new Date()).toISOString(),
    fingerprint: computeFingerprint(fields),
    ...(options.faultProxy ? await faultProxyFields(options.faultProxy) : {}),
  });
}

async function faultProxyFields(
  faultProxy: NonNullable<CaptureOptions['faultProxy']>,
): Promise<Pick<EnvironmentRecord, 'fault_proxy_kind' | 'fault_proxy_version'>> {
  const found =
    faultProxy.scope === 'own'
      ? { kind: 'embedded' as const, version: TOXIPROXY_COMPATIBLE_VERSION }
      : await readFaultProxy(faultProxy.apiUrl, faultProxy.embeddedProxy);
  return { fault_proxy_kind: found.kind, fault_proxy_version: found.version };
}
