/**
 * Drives scripts/bare-publish.js (the plain amqplib reference) in `--serve` mode: a separate
 * Node.js process with one long-lived, warmed-up connection, running one timed round per
 * request, so its rounds can alternate with the harness's under the same conditions.
 *
 * Lifecycle: `startBarePublisher` (spawned, warmed up, ready) -> `run()` any number of times,
 * one at a time -> `close()` (end of stdin; killed if it does not exit within the bound). A
 * process that dies fails the pending and every later `run()` with what it said on stderr.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';
import { redactText } from '../redact';

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
    BARE_PUBLISH_SCRIPT,
    '--client',
    options.library ?? 'amqplib',
    '--serve',
    '--queue',
    options.queue,
    '--messages',
    String(options.messages),
    '--size',
    String(options.messageSizeBytes),
    '--warmup',
    String(warmupMessages),
  ];
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, AMQP_URL: options.url },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  // stdin errors (EPIPE after the process died) surface through the exit instead.
  child.stdin.on('error', () => undefined);

  const lines: string[] = [];
  let waiter: ((line: string | undefined) => void) | undefined;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      waiter?.(undefined);
      resolve();
    });
  });
  readline.createInterface({ input: child.stdout, terminal: false }).on('line', (line) => {
    if (waiter) waiter(line);
    else lines.push(line);
  });

  const died = (): BenchError =>
    new BenchError('WORKER_FAILED', `bare-publish exited: ${redactText(stderr.trim()) || `code ${child.exitCode ?? child.signalCode}`}`);
  /** The next line of output, or an error when the process exits or the bound passes. */
  const nextLine = (what: string): Promise<string> => {
    const queued = lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (exited) return Promise.reject(died());
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        reject(new BenchError('TIMEOUT', `bare-publish did not ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiter = (line) => {
        clearTimeout(timer);
        waiter = undefined;
        if (line === undefined) reject(died());
        else resolve(line);
      };
    });
  };

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exit, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      if (!exited) {
        child.kill('SIGKILL');
        await exit;
      }
    })();
    return closing;
  };

  try {
    const ready = JSON.parse(await nextLine('get ready')) as { ready?: unknown };
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
      if (closing) throw new BenchError('WORKER_FAILED', 'the bare publisher is closed; start a new one');
      if (exited) throw died();
      child.stdin.write('run\n');
      return parseBareRecord(await nextLine('finish a round'));
    },
  };
}
