/**
 * The bare floor's side of a recovery scenario: scripts/bare-recovery.js, plain amqplib consumers
 * in worker threads of their own process, no harness code in their path, driven through JSON
 * lines (ready / all_detected / removed / all_recovered / report). The scenario around it is the
 * harness's own (scenario.ts): same proxy, same fault, same traffic, same removal.
 *
 * The bare threads learn of the removal one pipe hop later than the harness's (stdin, then a
 * message to each thread, against a shared-memory flag): recovery after removal is timed from the
 * removal either way, and each side's `recoveryStartedNs` shows how long its threads took to hear.
 */
import path from 'node:path';
import { PROJECT_ROOT } from '../config';
import { BenchError, WorkerError } from '../errors';
import { sleep } from '../measure/clock';
import { startLineProcess, type LineProcess } from '../suite-kit/lineProcess';
import { RECEIVED_KINDS } from '../client/faults';
import type { ConsumersStart, RecoveryConsumers, ThreadRecord } from './consumers';

export const BARE_RECOVERY_SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'bare-recovery.js');

/** One thread's record as the script reports it (ns as decimal strings). */
export interface BareThreadRecord {
  readonly thread?: number;
  readonly local_port: number | null;
  readonly ready_ns: string | null;
  readonly detected_ns: string | null;
  readonly cause: string;
  readonly recovery_started_ns: string | null;
  readonly recovered_ns: string | null;
  readonly attempts: number;
  readonly deliveries: number;
  readonly error?: string;
}

const nsOf = (value: string | null | undefined): bigint | null => (typeof value === 'string' && /^\d+$/.test(value) ? BigInt(value) : null);
const causeOf = (cause: string): ThreadRecord['detectionCause'] =>
  (RECEIVED_KINDS as readonly string[]).includes(cause) ? (cause as ThreadRecord['detectionCause']) : 'error';

/**
 * Parses the script's `report` line into thread records, in thread order.
 * @throws BenchError (RESULT_INVALID) when the line is not a report of `threads` threads.
 */
export function parseBareRecoveryReport(line: string, threads: number): ThreadRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new BenchError('RESULT_INVALID', `bare-recovery printed a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
  }
  const list = (parsed as { threads?: unknown } | null)?.threads;
  if (!Array.isArray(list) || list.length !== threads)
    throw new BenchError('RESULT_INVALID', `bare-recovery should report ${threads} threads; got ${JSON.stringify(line.slice(0, 200))}`);
  return (list as BareThreadRecord[]).map(threadRecordOf);
}

/** One bare thread's record (the script's, or a bare recovery program's) as the scenario's. */
export function threadRecordOf(record: BareThreadRecord, index: number): ThreadRecord {
  return {
    threadIndex: index,
    readyNs: nsOf(record.ready_ns),
    detectedNs: nsOf(record.detected_ns),
    detectionCause: causeOf(record.cause),
    recoveryStartedNs: nsOf(record.recovery_started_ns),
    recoveredNs: nsOf(record.recovered_ns),
    faultedLocalPort: record.local_port ?? 0,
    reconnectAttempts: record.attempts ?? 0,
    deliveries: record.deliveries ?? 0,
    falseAlarms: 0,
    ...(record.error ? { error: record.error } : {}),
  };
}

/** Starts scripts/bare-recovery.js for the scenario's threads (its queues share one prefix: `<prefix>.<thread>`). */
export function startBareConsumers(start: ConsumersStart): RecoveryConsumers {
  const prefix = start.queues[0]?.replace(/\.0$/, '');
  if (prefix === undefined || start.queues.some((queue, thread) => queue !== `${prefix}.${thread}`))
    throw new BenchError('CONFIG_INVALID', 'the bare recovery script needs queues named <prefix>.<thread>');
  const child: LineProcess = startLineProcess(
    'bare-recovery',
    BARE_RECOVERY_SCRIPT,
    ['--threads', String(start.threads), '--queue-prefix', prefix, '--bound-ms', String(start.phaseBoundMs)],
    { AMQP_URL: start.url },
  );
  /** The next line, which must say `key: true`; false when the bound passed first. */
  const expectFlag = async (key: string, what: string, boundMs: number): Promise<boolean> => {
    let line: string;
    try {
      line = await child.nextLine(what, boundMs);
    } catch (error) {
      if (error instanceof BenchError && error.code === 'TIMEOUT') return false;
      throw error;
    }
    if ((JSON.parse(line) as Record<string, unknown>)[key] !== true)
      throw new BenchError('RESULT_INVALID', `bare-recovery should say ${key} next; got ${JSON.stringify(line.slice(0, 200))}`);
    return true;
  };
  let detected = false;

  return {
    async waitReady() {
      if (!(await expectFlag('ready', 'get every thread ready', 30_000 + start.threads * 500)))
        throw new WorkerError(
          `bare-recovery: not every one of ${start.threads} threads connected and had traffic within the start-up bound`,
        );
    },
    // Its threads consume from the start and it says ready only once each had a delivery: the warm-up is the wait.
    warmUp: (warmupMs) => sleep(warmupMs),
    markInjected: () => undefined,
    async waitDetected(boundMs) {
      detected = await expectFlag('all_detected', 'see every thread detect', boundMs);
      return detected;
    },
    markRemoved: () => child.send('removed'),
    async waitRecovered(boundMs) {
      // A detection line that came after its bound is still in the queue: read past it.
      if (!detected && !(await expectFlag('all_detected', 'see every thread detect', boundMs))) return false;
      detected = true;
      return expectFlag('all_recovered', 'see every thread recover', boundMs);
    },
    async finish() {
      child.send('report');
      // Flags that came after their bound are still queued ahead of the report: read past them.
      for (;;) {
        const line = await child.nextLine('hand over its records', 10_000);
        if (!/^\{"(?:ready|all_detected|all_recovered)":true\b/.test(line)) return parseBareRecoveryReport(line, start.threads);
      }
    },
    close: () => child.close(),
  };
}
