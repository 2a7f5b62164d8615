/**
 * Drives scripts/bare-publish.js (the plain amqplib reference), for every suite that compares
 * with it. In `--serve` mode (the throughput suite's harness-overhead check): a separate Node.js
 * process with one long-lived, warmed-up connection, running one timed round per request, so its
 * rounds can alternate with the harness's under the same conditions. Once (`bench load
 * --compare-bare`): one timed round on a temporary queue of its own, after a warm-up.
 *
 * Lifecycle of `--serve`: `startBarePublisher` (spawned, warmed up, ready) -> `run()` any number of times,
 * one at a time -> `close()` (end of stdin; killed if it does not exit within the bound). A
 * process that dies fails the pending and every later `run()` with what it said on stderr.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';
import type { ClientAdapter, ClientSpec } from '../client/api';
import { adapterOf } from '../client/registry';
import { startLineProcess, startLineProgram } from './lineProcess';

export const BARE_PUBLISH_SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'bare-publish.js');

export interface BarePublisherOptions {
  readonly url: string;
  /** An existing queue (the script does not declare it). */
  readonly queue: string;
  readonly messages: number;
  readonly messageSizeBytes: number;
  /** Untimed messages published once, at start. @default messages */
  readonly warmupMessages?: number;
  /** Bound on start-up (process, connection, warm-up) and on each round. @default 60000 */
  readonly timeoutMs?: number;
  /** The library whose bare script runs (scripts/bare/<library>.js). @default amqplib */
  readonly library?: string;
  /** The library's own connection options (the adapter's `bareOptions` of the configuration measured); the script's fixed ones when absent. */
  readonly libraryOptions?: Readonly<Record<string, unknown>>;
  /** The bare publish program of a client in another language (`bareProgramOf`), run instead of the Node.js script; the same flags follow. */
  readonly program?: readonly string[];
}

/** The bare publish program of a client in another language (adapters/<language>/), or undefined for a Node.js library. */
export function bareProgramOf(client: Pick<ClientSpec, 'name' | 'module'>): readonly string[] | undefined {
  const adapter = adapterOf(client) as ClientAdapter & { readonly barePublishCommand?: readonly string[] };
  return adapter.barePublishCommand;
}

/** One timed round as the script reports it. */
export interface BarePublishRun {
  readonly messages: number;
  readonly message_size_bytes: number;
  readonly warmup_messages: number;
  readonly seconds: number;
  readonly msgs_per_sec: number;
}

export interface BarePublisher {
  /** Messages the warm-up put in the queue at start. */
  readonly warmupMessages: number;
  /** Runs one timed round. @throws BenchError when the process fails or the round exceeds the bound. */
  run(): Promise<BarePublishRun>;
  /** Ends the process; safe to call twice. */
  close(): Promise<void>;
}

const RUN_FIELDS = ['messages', 'message_size_bytes', 'warmup_messages', 'seconds', 'msgs_per_sec'] as const;

/**
 * Parses one record line of the script.
 * @throws BenchError (RESULT_INVALID) naming what is missing.
 */
export function parseBareRecord(line: string): BarePublishRun {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new BenchError('RESULT_INVALID', `bare-publish printed a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
  }
  const record = (parsed ?? {}) as Partial<Record<(typeof RUN_FIELDS)[number], unknown>>;
  for (const field of RUN_FIELDS) {
    const value = record[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new BenchError(
        'RESULT_INVALID',
        `bare-publish output needs a finite non-negative number in "${field}"; got ${JSON.stringify(value)}`,
      );
    }
  }
  return parsed as BarePublishRun;
}

/**
 * Starts the script in `--serve` mode and waits until it has connected and warmed up.
 * @throws BenchError when it exits or does not get ready within the bound (the process is killed).
 */
export async function startBarePublisher(options: BarePublisherOptions): Promise<BarePublisher> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const warmupMessages = options.warmupMessages ?? options.messages;
  const args = [
    ...(options.program ? [] : ['--client', options.library ?? 'amqplib']),
    '--serve',
    '--queue',
    options.queue,
    '--messages',
    String(options.messages),
    '--size',
    String(options.messageSizeBytes),
    '--warmup',
    String(warmupMessages),
    ...(options.libraryOptions ? ['--options', JSON.stringify(options.libraryOptions)] : []),
  ];
  const child = options.program
    ? startLineProgram('bare-publish', [...options.program, ...args], { AMQP_URL: options.url })
    : startLineProcess('bare-publish', BARE_PUBLISH_SCRIPT, args, { AMQP_URL: options.url });
  let closed = false;
  const close = (): Promise<void> => {
    closed = true;
    return child.close();
  };

  try {
    const ready = JSON.parse(await child.nextLine('get ready', timeoutMs)) as { ready?: unknown };
    if (ready.ready !== true)
      throw new BenchError('RESULT_INVALID', `bare-publish should say it is ready first; got ${JSON.stringify(ready)}`);
  } catch (error) {
    await close();
    throw error;
  }

  return {
    warmupMessages,
    close,
    async run(): Promise<BarePublishRun> {
      if (closed) throw new BenchError('WORKER_FAILED', 'the bare publisher is closed; start a new one');
      if (child.exited) throw child.died();
      child.send('run');
      return parseBareRecord(await child.nextLine('finish a round', timeoutMs));
    },
  };
}

const ONCE_BOUND_MS = 180_000;

/**
 * Runs the script once: a temporary queue it declares and deletes, `warmup` untimed messages, then
 * one timed round. The URL goes through the environment, never argv (credentials stay out of the
 * process list).
 * @throws BenchError when the script fails, exceeds the bound or prints no valid record.
 */
export function runBarePublishOnce(
  url: string,
  options: {
    readonly messages: number;
    readonly messageSizeBytes: number;
    readonly warmupMessages: number;
    readonly libraryOptions: Readonly<Record<string, unknown>>;
    /** The library whose bare script runs (scripts/bare/<library>.js). @default amqplib */
    readonly library?: string;
    /** The bare publish program of a client in another language (`bareProgramOf`), run instead of the Node.js script. */
    readonly program?: readonly string[];
  },
): Promise<BarePublishRun> {
  const [executable, ...programArgs] = options.program ?? [process.execPath, BARE_PUBLISH_SCRIPT, '--client', options.library ?? 'amqplib'];
  const args = [
    ...programArgs,
    '--declare',
    '--messages',
    String(options.messages),
    '--size',
    String(options.messageSizeBytes),
    '--warmup',
    String(options.warmupMessages),
    '--options',
    JSON.stringify(options.libraryOptions),
  ];
  return new Promise((resolve, reject) => {
    execFile(
      executable!,
      args,
      { env: { ...process.env, AMQP_URL: url }, timeout: ONCE_BOUND_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new BenchError('WORKER_FAILED', `bare publish script failed: ${(stderr || error.message).trim().split('\n').pop()}`));
          return;
        }
        try {
          resolve(parseBareRecord(stdout.trim().split('\n').pop() ?? ''));
        } catch (parseError) {
          reject(parseError);
        }
      },
    );
  });
}

/**
 * The bare script of a client: its library's, scripts/bare/<package>.js, or for a scoped package
 * its scope's (`@cloudamqp/amqp-client` -> cloudamqp.js); amqplib's two recovery styles share amqplib's.
 */
export function bareClientOf(client: Pick<ClientSpec, 'name' | 'module'>): string {
  return adapterOf(client).library.replace(/^@([^/]+)\/.*$/, '$1');
}
