/**
 * The bare floor's side of a recovery scenario for a client in another language: its bare
 * recovery program (adapters/python/bare_recovery.py, `amqp091-client --bare-recovery`), one
 * process per thread as the harness starts one client program per connection, each the library
 * alone with the client program's settings for the profile and the harness loop's backoff, no
 * protocol and no harness code in its path. Each says `ready` / `detected` / `recovered` (or
 * `failed`) as it goes, times everything in its own process (CLOCK_MONOTONIC), and hands over its
 * record when asked; here they are counted into the scenario's phases, as scripts/bare-recovery.js's
 * main thread counts its worker threads.
 */
import type { ClientAdapter, ClientSpec } from '../client/api';
import { harnessBackoff } from '../client/process/connection';
import { adapterOf } from '../client/registry';
import { BenchError, WorkerError } from '../errors';
import { sleep } from '../measure/clock';
import { startLineProgram, type LineProcess } from '../suite-kit/lineProcess';
import { threadRecordOf, type BareThreadRecord } from './bareConsumers';
import type { ConsumersStart, RecoveryConsumers, StartConsumers, ThreadRecord } from './consumers';

/** The bare recovery program of a client in another language (adapters/<language>/), or undefined for a Node.js library. */
export function bareRecoveryProgramOf(client: Pick<ClientSpec, 'name' | 'module'>): readonly string[] | undefined {
  const adapter = adapterOf(client) as ClientAdapter & { readonly bareRecoveryCommand?: readonly string[] };
  return adapter.bareRecoveryCommand;
}

type Phase = 'ready' | 'detected' | 'recovered';

/** One program's progress: the phases it said, whether it failed (and why), and its record's line once asked. */
interface Child {
  readonly process: LineProcess;
  readonly said: Set<Phase | 'failed'>;
  error?: string;
  record?: BareThreadRecord;
}

/** The record of a program that ended before handing one over. */
const NO_RECORD: BareThreadRecord = {
  local_port: null,
  ready_ns: null,
  detected_ns: null,
  cause: 'none',
  recovery_started_ns: null,
  recovered_ns: null,
  attempts: 0,
  deliveries: 0,
};

/** How long the report of every program may take once asked. */
const REPORT_BOUND_MS = 10_000;

/** Starts `program` once per thread of the scenario, each on its own queue, with the client's profile. */
export function startBareProgramConsumers(program: readonly string[], client: ClientSpec): StartConsumers {
  return (start: ConsumersStart): RecoveryConsumers => {
    const options = JSON.stringify({ profile: client.profile, backoff: harnessBackoff(client.profile) });
    const children: Child[] = start.queues.map((queue, thread) => {
      const child: Child = {
        process: startLineProgram(
          `bare-recovery ${client.name} thread ${thread}`,
          [...program, '--queue', queue, '--bound-ms', String(start.phaseBoundMs), '--options', options],
          { AMQP_URL: start.url },
        ),
        said: new Set(),
      };
      void readLines(child);
      return child;
    });
    /** True once every program said `phase` (or failed); false when the bound passed first. */
    const waitFor = async (phase: Phase, boundMs: number): Promise<boolean> => {
      const deadline = Date.now() + boundMs;
      for (;;) {
        if (children.every((child) => child.said.has(phase) || child.said.has('failed'))) return true;
        if (Date.now() >= deadline) return false;
        await sleep(5);
      }
    };
    return {
      async waitReady() {
        const ready = await waitFor('ready', 30_000 + start.threads * 500);
        const failed = children.flatMap((child, thread) => (child.said.has('failed') ? [`thread ${thread}: ${child.error}`] : []));
        if (!ready || failed.length > 0)
          throw new WorkerError(
            `bare-recovery ${client.name}: not every one of ${start.threads} programs connected and had traffic within the start-up bound${failed.length > 0 ? ` (${failed.join('; ')})` : ''}`,
          );
      },
      // Each consumes from the start and says ready only once it had a delivery and a round trip: the warm-up is the wait.
      warmUp: (warmupMs) => sleep(warmupMs),
      markInjected: () => undefined,
      waitDetected: (boundMs) => waitFor('detected', boundMs),
      markRemoved: () => children.forEach((child) => child.process.send('removed')),
      waitRecovered: (boundMs) => waitFor('recovered', boundMs),
      async finish(): Promise<ThreadRecord[]> {
        children.forEach((child) => child.process.send('report'));
        const deadline = Date.now() + REPORT_BOUND_MS;
        while (children.some((child) => child.record === undefined)) {
          if (Date.now() >= deadline)
            throw new BenchError('TIMEOUT', `bare-recovery ${client.name}: not every program handed over its record`);
          await sleep(5);
        }
        return children.map((child, thread) => threadRecordOf(child.record!, thread));
      },
      close: async () => {
        await Promise.all(children.map((child) => child.process.close()));
      },
    };
  };
}

/** Reads a program's lines until it ends: its phases, its failure, its record. */
async function readLines(child: Child): Promise<void> {
  for (;;) {
    let line: string;
    try {
      line = await child.process.nextLine('say how its connection is doing', 3_600_000);
    } catch (error) {
      // It ended (or broke) without its record: what it said last stands for it.
      if (child.record === undefined) {
        child.error ??= (error as Error).message;
        child.said.add('failed');
        child.record = { ...NO_RECORD, error: child.error };
      }
      return;
    }
    let message: Partial<Record<Phase | 'failed', boolean>> & { error?: string; record?: BareThreadRecord };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      message = { failed: true, error: `printed a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}` };
    }
    if (message.record) child.record = message.record;
    if (message.failed) child.error = message.error ?? 'failed';
    for (const phase of ['ready', 'detected', 'recovered', 'failed'] as const) if (message[phase] === true) child.said.add(phase);
  }
}
