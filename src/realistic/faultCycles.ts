/**
 * Periodic network faults during a workload: a TCP reset (the fault model's reset_peer: an RST on
 * the next data from the broker) injected, held, removed, again and again on a fixed schedule, in
 * the background.
 * `done` never rejects: a failed API call ends the cycles and is reported in `error`, and the
 * toxic of the failed cycle is still tracked by the fault helpers, so the per-test cleanup
 * removes it.
 */
import { describeError } from '../errors';
import type { ProxyTarget } from '../faults';
import { createFault, type FaultSpec } from '../faults/kinds/registry';
import type { Fault } from '../faults/model';
import { sleep } from '../measure/clock';
import type { WorkloadHooks } from './options';

export interface ResetCycleOptions {
  readonly cycles: number;
  /** Start -> first injection. */
  readonly firstAfterMs: number;
  /** Injection -> next injection. */
  readonly intervalMs: number;
  /** How long each toxic stays at least (reconnects fail while it is there). */
  readonly holdMs: number;
  /**
   * Past `holdMs`, how long the toxic may stay until every connection open at the injection was
   * reset: a reset acts on the next data towards the client, and a client whose connections carry
   * data only now and then (foo-foo-mq's consumers get theirs on a 500 ms ack tick) can let a short
   * hold pass untouched. Read from the embedded proxy's timeline; through a proxy without one
   * (real Toxiproxy) the hold is `holdMs`. 0 or absent: `holdMs` always.
   */
  readonly untilEveryConnectionHitMs?: number;
}

export interface FaultCycle {
  /** Start of the API call that added the toxic. */
  readonly injectedNs: bigint;
  /** End of the API call that removed it. */
  readonly removedNs: bigint;
}

export interface ResetCyclesResult {
  readonly cycles: readonly FaultCycle[];
  readonly error?: string;
}

export interface ResetCycles {
  readonly done: Promise<ResetCyclesResult>;
  /** No further injection; a held toxic is removed now. */
  stop(): void;
}

export function startResetCycles(proxy: ProxyTarget, options: ResetCycleOptions): ResetCycles {
  let stopped = false;
  let wake: (() => void) | undefined;
  const wait = async (ms: number): Promise<void> => {
    if (stopped) return;
    await Promise.race([sleep(ms), new Promise<void>((resolve) => (wake = resolve))]);
    wake = undefined;
  };
  const run = async (): Promise<ResetCyclesResult> => {
    const cycles: FaultCycle[] = [];
    let toxic: Fault | undefined;
    try {
      await wait(options.firstAfterMs);
      for (let cycle = 0; cycle < options.cycles && !stopped; cycle += 1) {
        const cycleStart = Date.now();
        // Added to open connections (not armed): each cycle hits the connections of the moment.
        toxic = createFault({ kind: 'reset_peer', options: { timeout_ms: 0, armed: false } }, { proxy });
        const injectedNs = (await toxic.inject()).bracket.startedNs;
        await wait(options.holdMs);
        await untilEveryConnectionHit(proxy, injectedNs, options.untilEveryConnectionHitMs ?? 0, wait, () => stopped);
        const removed = await toxic.remove();
        toxic = undefined;
        cycles.push({ injectedNs, removedNs: removed.completedNs });
        if (cycle + 1 < options.cycles) await wait(Math.max(0, options.intervalMs - (Date.now() - cycleStart)));
      }
      return { cycles };
    } catch (error) {
      await toxic?.remove().catch(() => undefined);
      return { cycles, error: describeError(error) };
    }
  };
  const done = run();
  return {
    done,
    stop: () => {
      stopped = true;
      wake?.();
    },
  };
}

/** Waits (bounded) until every connection open at `injectedNs` was reset or closed since, polling the proxy's timeline. */
async function untilEveryConnectionHit(
  proxy: ProxyTarget,
  injectedNs: bigint,
  boundMs: number,
  wait: (ms: number) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  const deadline = performance.now() + boundMs;
  while (performance.now() < deadline && !stopped()) {
    const [connections, events] = await Promise.all([proxy.client.connections(proxy.name), proxy.client.events(proxy.name, injectedNs)]);
    if (connections === null || events === null) return;
    const reset = new Set(events.filter((event) => event.kind === 'reset_sent').map((event) => event.connection_id));
    const missed = connections.filter(
      (connection) => connection.closed_at_ns === null && BigInt(connection.opened_at_ns ?? '0') < injectedNs && !reset.has(connection.id),
    );
    if (missed.length === 0) return;
    await wait(20);
  }
}

/**
 * Workload hooks running reset cycles in the background of round `round` (started before it,
 * stopped once it is consumed), and the cycles' result once that round is over.
 */
export function resetCyclesDuringRound(
  proxy: ProxyTarget,
  round: number,
  options: ResetCycleOptions,
): { hooks: WorkloadHooks; result: () => ResetCyclesResult | undefined } {
  let cycles: ResetCycles | undefined;
  let result: ResetCyclesResult | undefined;
  return {
    hooks: {
      beforeRound: (index) => {
        if (index === round) cycles = startResetCycles(proxy, options);
      },
      afterRound: async (index) => {
        if (index !== round || !cycles) return;
        cycles.stop();
        result = await cycles.done;
      },
    },
    result: () => result,
  };
}

/** Workload hooks holding one fault of the fault model in place for the whole of round `round` (injected before it, removed after it). */
export function faultDuringRound(proxy: ProxyTarget, round: number, spec: FaultSpec): WorkloadHooks {
  let fault: Fault | undefined;
  return {
    beforeRound: async (index) => {
      if (index !== round) return;
      fault = createFault(spec, { proxy });
      await fault.inject();
    },
    afterRound: async (index) => {
      if (index === round) await fault?.remove();
    },
  };
}
