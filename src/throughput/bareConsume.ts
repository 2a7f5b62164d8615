/**
 * Drives scripts/bare-consume.js (the bare consumer of a client library) in `--serve` mode: a
 * separate Node.js process with one long-lived connection, running one warmed-up timed window
 * per request, so its windows can alternate with the harness's on the same queue, fed by the
 * same producers.
 *
 * Lifecycle: `startBareConsumer` (spawned, connected, ready) -> `run()` any number of times, one
 * at a time -> `close()` (safe twice). A process that dies fails the pending and every later
 * `run()` with what it said on stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';
import { startLineProcess } from '../suite-kit/lineProcess';

export const BARE_CONSUME_SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'bare-consume.js');

export interface BareConsumerOptions {
  readonly url: string;
  /** An existing queue, kept fed by someone else. */
  readonly queue: string;
  readonly consumers: number;
  readonly prefetch: number;
  readonly warmupMs: number;
  readonly windowMs: number;
  /** The bare module, scripts/bare/<client>.js. @default 'amqplib' */
  readonly client?: string;
  /** Bound on start-up, and on each window beyond its warm-up and length. @default 30000 */
  readonly timeoutMs?: number;
}

/** One timed window as the script reports it (edges on the monotonic clock). */
export interface BareConsumeRun {
  readonly consumers: number;
  readonly prefetch: number;
  readonly warmup_ms: number;
  readonly window_ms: number;
  readonly startedNs: bigint;
  readonly endedNs: bigint;
  readonly seconds: number;
  readonly messages: number;
  readonly msgs_per_sec: number;
  /** CPU time of the consuming thread during the window (null where the platform cannot tell). */
  readonly cpuMs: number | null;
  /** Every delivery from the consumers' start to their cancel. */
  readonly consumed_total: number;
}

export interface BareConsumer {
  readonly client: string;
  /** Starts the consumers, warms up, times one window, cancels. @throws BenchError when the process fails or exceeds the bound. */
  run(): Promise<BareConsumeRun>;
  close(): Promise<void>;
}

const NUMBER_FIELDS = ['consumers', 'prefetch', 'warmup_ms', 'window_ms', 'seconds', 'messages', 'msgs_per_sec', 'consumed_total'] as const;

/**
 * Parses one record line of the script.
 * @throws BenchError (RESULT_INVALID) naming what is missing.
 */
export function parseBareConsumeRecord(line: string): BareConsumeRun {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new BenchError('RESULT_INVALID', `bare-consume printed a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
  }
  const record = (parsed ?? {}) as Record<string, unknown>;
  for (const field of NUMBER_FIELDS) {
    const value = record[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new BenchError(
        'RESULT_INVALID',
        `bare-consume output needs a finite non-negative number in "${field}"; got ${JSON.stringify(value)}`,
      );
  }
  const edge = (field: 'started_ns' | 'ended_ns'): bigint => {
    const value = record[field];
    if (typeof value !== 'string' || !/^\d+$/.test(value))
      throw new BenchError(
        'RESULT_INVALID',
        `bare-consume output needs a clock reading (digits in a string) in "${field}"; got ${JSON.stringify(value)}`,
      );
    return BigInt(value);
  };
  const cpuMs = record.cpu_ms ?? null;
  if (cpuMs !== null && (typeof cpuMs !== 'number' || !Number.isFinite(cpuMs) || cpuMs < 0))
    throw new BenchError(
      'RESULT_INVALID',
      `bare-consume output needs a non-negative number or null in "cpu_ms"; got ${JSON.stringify(cpuMs)}`,
    );
  const figures = Object.fromEntries(NUMBER_FIELDS.map((field) => [field, record[field] as number])) as Record<
    (typeof NUMBER_FIELDS)[number],
    number
  >;
  return { ...figures, cpuMs, startedNs: edge('started_ns'), endedNs: edge('ended_ns') };
}

/** True when scripts/bare/<client>.js exists and says it can consume (`supportsConsume: true`). */
export function hasBareConsume(client: string): boolean {
  if (!/^[a-z0-9-]+$/.test(client)) return false;
  const file = path.join(PROJECT_ROOT, 'scripts', 'bare', `${client}.js`);
  if (!fs.existsSync(file)) return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(file) as { supportsConsume?: unknown }).supportsConsume === true;
}

/**
 * Starts the script in `--serve` mode and waits until it is connected.
 * @throws BenchError when it exits or does not get ready within the bound (the process is killed).
 */
export async function startBareConsumer(options: BareConsumerOptions): Promise<BareConsumer> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const client = options.client ?? 'amqplib';
  const args = [
    '--serve',
    '--client',
    client,
    '--queue',
    options.queue,
    '--consumers',
    String(options.consumers),
    '--prefetch',
    String(options.prefetch),
    '--warmup-ms',
    String(options.warmupMs),
    '--window-ms',
    String(options.windowMs),
  ];
  const child = startLineProcess('bare-consume', BARE_CONSUME_SCRIPT, args, { AMQP_URL: options.url });
  try {
    const line = await child.nextLine('get ready', timeoutMs);
    if (!/^\{"ready":true\b/.test(line))
      throw new BenchError('RESULT_INVALID', `bare-consume should say it is ready first; got ${JSON.stringify(line.slice(0, 200))}`);
  } catch (error) {
    await child.close();
    throw error;
  }
  let closed = false;
  return {
    client,
    close: () => {
      closed = true;
      return child.close();
    },
    async run(): Promise<BareConsumeRun> {
      if (closed) throw new BenchError('WORKER_FAILED', 'the bare consumer is closed; start a new one');
      if (child.exited) throw child.died();
      child.send('run');
      return parseBareConsumeRecord(await child.nextLine('finish a window', options.warmupMs + options.windowMs + timeoutMs));
    },
  };
}
