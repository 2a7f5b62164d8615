/**
 * Runs contract checks against one client configuration: the harness's admin connection and
 * fault proxy for all of them, each check cut off at its bound, and what a group of checks opened
 * (client connections, queues, toxics) released when the group ends — also after a failure or a
 * bound that passed. A check cut off by its bound keeps running in the background until its next
 * wait, which then stops it; a connection it opens afterwards is closed at once.
 */
import { randomUUID } from 'node:crypto';
import { describeError } from '../../errors';
import { nowNs, elapsedMs, sleep } from '../../measure/clock';
import type { ClientAdapter, ClientConnection, ClientInfo, ClientSpec } from '../api';
import { adapterOf, clientInfo } from '../registry';
import { ContractFaultProxy } from './faultProxy';
import { HarnessBroker } from './harnessBroker';
import {
  ClientFinding,
  ContractViolation,
  NotChecked,
  formatDuration,
  type AlarmNode,
  type CheckContext,
  type CheckOutcome,
  type ContractCheck,
} from './types';

/** The first connection's bound, given to the adapter (`startBoundMs`). */
export const CONNECT_BOUND_MS = 10_000;
/** Each close() of the cleanup: an adapter whose close hangs does not hang the contract. */
const CLEANUP_CLOSE_BOUND_MS = 5000;
/** How often a wait looks again. */
const POLL_MS = 10;

/** Thrown into a check that goes on after its bound passed, to stop it at its next wait. */
class Abandoned extends Error {}

export class ContractSession {
  private group: string | undefined;
  private scope: object = {};
  /** Bumped when a group ends: a connection that resolves for an earlier group is closed at once. */
  private generation = 0;
  private readonly connections = new Set<ClientConnection>();
  private readonly outcomes = new Map<string, CheckOutcome>();
  private closed = false;

  private constructor(
    readonly spec: ClientSpec,
    readonly adapter: ClientAdapter,
    readonly info: ClientInfo,
    readonly directUrl: string,
    private readonly broker: HarnessBroker,
    readonly proxy: ContractFaultProxy,
    private readonly alarmNode: AlarmNode | undefined,
  ) {}

  /** Loads the adapter, connects the harness's admin connection and starts the fault proxy. */
  static async open(spec: ClientSpec, amqpUrl: string, alarmNode?: AlarmNode): Promise<ContractSession> {
    const adapter = adapterOf(spec);
    const info = clientInfo(spec);
    const broker = await HarnessBroker.open(amqpUrl);
    try {
      const proxy = await ContractFaultProxy.start(amqpUrl);
      return new ContractSession(spec, adapter, info, amqpUrl, broker, proxy, alarmNode);
    } catch (error) {
      await broker.close();
      throw error;
    }
  }

  /** Outcomes so far, by check name. */
  outcomeOf(name: string): CheckOutcome | undefined {
    return this.outcomes.get(name);
  }

  /** Runs `check` within its bound; never throws. */
  async run(check: ContractCheck): Promise<CheckOutcome> {
    if (this.closed) throw new Error('the contract session is closed');
    if (check.group !== this.group) {
      await this.endGroup();
      this.group = check.group;
    }
    const startedNs = nowNs();
    const state = { step: 'starting', abandoned: false };
    let timer: NodeJS.Timeout | undefined;
    const running = check.run(this.contextFor(state));
    // Once the bound has won, whatever the abandoned check throws later is expected.
    running.catch(() => undefined);
    const outcome = (status: CheckOutcome['status'], words: string): CheckOutcome => ({
      name: check.name,
      status,
      words,
      elapsedMs: elapsedMs(startedNs, nowNs()),
    });
    let result: CheckOutcome;
    try {
      const words = await Promise.race([
        running,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Abandoned()), check.boundMs);
        }),
      ]);
      result = outcome('passed', words);
    } catch (error) {
      if (error instanceof Abandoned) {
        state.abandoned = true;
        result = outcome('failed', `bound of ${formatDuration(check.boundMs)} passed while ${state.step}`);
      } else if (error instanceof NotChecked) result = outcome('skipped', error.message);
      else if (error instanceof ContractViolation) result = outcome('failed', error.message);
      else if (error instanceof ClientFinding) result = outcome('finding', error.message);
      else result = outcome('failed', `threw while ${state.step}: ${describeError(error)}`);
    } finally {
      clearTimeout(timer);
    }
    this.outcomes.set(check.name, result);
    return result;
  }

  /** Releases what the current group opened: its client connections, the toxics, the queues the harness declared. Never throws. */
  async endGroup(): Promise<void> {
    this.generation += 1;
    this.scope = {};
    const connections = [...this.connections];
    this.connections.clear();
    await Promise.all(connections.map(closeQuietly));
    await this.proxy.heal().catch(() => undefined);
    await this.broker.releaseDeclared();
  }

  /** Ends the last group, stops the proxy and closes the admin connection; safe to call twice, never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.endGroup();
    this.closed = true;
    await this.proxy.close().catch(() => undefined);
    await this.broker.close();
  }

  private contextFor(state: { step: string; abandoned: boolean }): CheckContext {
    const stillRunning = () => {
      if (state.abandoned) throw new Abandoned();
    };
    return {
      spec: this.spec,
      adapter: this.adapter,
      info: this.info,
      scope: this.scope,
      brokerUrl: this.directUrl,
      broker: this.broker,
      faults: this.proxy,
      alarmNode: this.alarmNode,
      step: (what) => {
        state.step = what;
      },
      unique: (prefix) => `${prefix}-${randomUUID()}`,
      earlier: (name) => this.outcomes.get(name),
      sleep: async (ms) => {
        await sleep(ms);
        stillRunning();
      },
      waitUntil: async (predicate, boundMs) => {
        const deadline = performance.now() + boundMs;
        for (;;) {
          stillRunning();
          if (predicate()) return true;
          if (performance.now() >= deadline) return false;
          await sleep(POLL_MS);
        }
      },
      within: async (promise, boundMs, what) => {
        promise.catch(() => undefined);
        let timer: NodeJS.Timeout | undefined;
        try {
          return await Promise.race([
            promise,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new ContractViolation(`${what} did not end within ${formatDuration(boundMs)}`)), boundMs);
            }),
          ]);
        } finally {
          clearTimeout(timer);
          stillRunning();
        }
      },
      connect: async (via, connectionName) => {
        stillRunning();
        const generation = this.generation;
        if (via === 'alarm-node' && this.alarmNode === undefined) throw new Error('no alarm node in this session');
        const url = via === 'proxy' ? this.proxy.proxiedUrl : via === 'alarm-node' ? this.alarmNode!.url : this.directUrl;
        const connection = await this.adapter.connect(this.spec.profile, {
          urls: [url],
          connectionName: connectionName ?? `amqp-bench-check-adapter-${randomUUID()}`,
          startBoundMs: CONNECT_BOUND_MS,
        });
        if (state.abandoned || this.closed || generation !== this.generation) {
          // Too late: its check or group is over, nobody would close it.
          void closeQuietly(connection);
          throw new Abandoned();
        }
        this.connections.add(connection);
        return connection;
      },
    };
  }
}

/** A client connection's close, bounded, whatever it throws (an adapter whose close throws is a finding of its own check). */
async function closeQuietly(connection: ClientConnection): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.resolve()
      .then(() => connection.close())
      .catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLEANUP_CLOSE_BOUND_MS);
    }),
  ]);
  clearTimeout(timer);
}
