/**
 * What a client program says of itself (`<program> --describe`, one line): the library, its
 * version as the program reads it from the library, the runtime, who recovers, how each signal is
 * given, and the settings of each profile. Read once per process (results record it without
 * connecting), synchronously and bounded: `clientInfo` is synchronous.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { packageRoot } from '../../packageRoot';
import { BenchError } from '../../errors';
import { redactText } from '../../redact';
import type { Description } from '../../schemaTypes/clientProtocol';
import { NotTheProtocol, parseDescription, unsupportedProtocol, unsupportedVersionOf } from './wire';

/** A slow machine importing a Python library for the first time takes a second or two. */
const DESCRIBE_BOUND_MS = 20_000;

const described = new Map<string, Description>();

/** `python3 adapters/python/kombu_client.py`: how reports and errors name a command. */
export function commandWords(command: readonly string[]): string {
  return command.join(' ');
}

/**
 * The description `command --describe` prints.
 * @throws BenchError (WORKER_FAILED) saying why there is none: the program is missing, fails, is
 *   too slow, or prints something else — with its last output
 */
export function describeProgram(command: readonly string[]): Description {
  const key = JSON.stringify(command);
  const cached = described.get(key) ?? inheritedDescription(key);
  if (cached) return cached;
  const [executable, ...args] = command;
  const words = commandWords(command);
  const ran = spawnSync(executable!, [...args, '--describe'], {
    cwd: packageRoot(),
    encoding: 'utf8',
    timeout: DESCRIBE_BOUND_MS,
    killSignal: 'SIGKILL',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = `${ran.stderr ?? ''}\n${ran.stdout ?? ''}`.trim();
  const lastLine = redactText(output.split('\n').slice(-1)[0] ?? '').slice(0, 300);
  if (ran.error) throw new BenchError('WORKER_FAILED', `${words} --describe could not run: ${ran.error.message}`);
  if (ran.status !== 0)
    throw new BenchError(
      'WORKER_FAILED',
      `${words} --describe failed (${ran.signal ?? `exit code ${ran.status}`}): ${lastLine || 'no output'}`,
    );
  const line = (ran.stdout ?? '').trim().split('\n').pop() ?? '';
  let description: Description;
  try {
    description = parseDescription(line);
  } catch (error) {
    if (!(error instanceof NotTheProtocol)) throw error;
    const versionSaid = unsupportedVersionOf(line);
    if (versionSaid !== undefined) throw new BenchError('WORKER_FAILED', unsupportedProtocol(words, versionSaid));
    throw new BenchError('WORKER_FAILED', `${words} --describe ${error.message}`);
  }
  described.set(key, description);
  // Worker threads (and child processes) started from here inherit it: 50 threads do not run --describe 50 times.
  process.env[environmentKey(key)] = line;
  return description;
}

/** The environment variable a description is handed down in. */
function environmentKey(key: string): string {
  return `AMQP_BENCH_DESCRIBED_${createHash('sha1').update(key).digest('hex').slice(0, 16)}`;
}

/** A description this process inherited from the one that started it (checked again, as any line). */
function inheritedDescription(key: string): Description | undefined {
  const line = process.env[environmentKey(key)];
  if (line === undefined) return undefined;
  try {
    const description = parseDescription(line);
    described.set(key, description);
    return description;
  } catch {
    return undefined;
  }
}
