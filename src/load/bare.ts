/**
 * `--compare-bare`: the bare amqplib publish script (scripts/bare-publish.js, the reference the
 * throughput suite's harness-overhead check uses) run on the same broker address, with the same
 * library settings and message size, right after the load run's measured part, while the proxy
 * is still up: the open-loop publisher's max rate is then compared with it side by side.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../config';
import { BenchError } from '../errors';

export interface BarePublishRecord {
  readonly messages: number;
  readonly message_size_bytes: number;
  readonly seconds: number;
  readonly msgs_per_sec: number;
}

const BARE_BOUND_MS = 180_000;

/** Runs the bare publish script once (a temporary queue, `warmup` untimed messages first). */
export function runBarePublish(
  url: string,
  options: {
    readonly messages: number;
    readonly sizeBytes: number;
    readonly warmup: number;
    readonly libraryOptions: Readonly<Record<string, unknown>>;
  },
): Promise<BarePublishRecord> {
  const script = path.join(PROJECT_ROOT, 'scripts', 'bare-publish.js');
  const args = [
    script,
    '--declare',
    '--messages',
    String(options.messages),
    '--size',
    String(options.sizeBytes),
    '--warmup',
    String(options.warmup),
    '--options',
    JSON.stringify(options.libraryOptions),
  ];
  return new Promise((resolve, reject) => {
    // The URL goes through the environment, never argv (credentials stay out of the process list).
    execFile(
      process.execPath,
      args,
      { env: { ...process.env, AMQP_URL: url }, timeout: BARE_BOUND_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new BenchError('WORKER_FAILED', `bare publish script failed: ${(stderr || error.message).trim().split('\n').pop()}`));
          return;
        }
        const line = stdout.trim().split('\n').pop() ?? '';
        try {
          resolve(JSON.parse(line) as BarePublishRecord);
        } catch {
          reject(new BenchError('WORKER_FAILED', `bare publish script printed no record: ${JSON.stringify(line.slice(0, 200))}`));
        }
      },
    );
  });
}
