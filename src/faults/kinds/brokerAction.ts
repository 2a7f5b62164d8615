/**
 * A fault made of one broker action and its undoing (close named connections, delete an exchange or
 * a queue and declare it again, raise and clear an alarm): the shared shape of the broker faults.
 * The call's bracket is its moment only as an upper bound (a rabbitmqctl call takes 0.3 s and
 * more); the exact moment is the frame the broker sends passing the proxy (definition.acted).
 */
import { bracket, nowNs } from '../../measure/clock';
import type { Fault, FaultDefinition, FaultHit, FaultOptions, FaultRemoval, FaultTarget, Injection } from '../model';

export interface BrokerActionPlan {
  readonly target: FaultTarget;
  /** What the hit is called in results (`close_connections`). */
  readonly action: string;
  act(): Promise<void>;
  /** Undoes it; absent when nothing needs undoing (a closed connection is for the client to reopen). */
  undo?(): Promise<void>;
}

export function brokerActionFault(definition: FaultDefinition, options: FaultOptions, plan: BrokerActionPlan): Fault {
  const hits: FaultHit[] = [];
  // Started, not necessarily finished: a call that failed or outlasted its bound may still have
  // acted on the broker (the alarm set after the CLI was given up on), so it is undone all the same.
  let attempted = false;
  let removal: Promise<FaultRemoval> | undefined;
  const targetName = 'name' in plan.target ? plan.target.name : 'name_prefix' in plan.target ? plan.target.name_prefix : 'cluster';
  return {
    kind: definition.kind,
    definition,
    target: plan.target,
    parameters: options,
    hits,
    steps: [],
    prepare: async () => undefined,
    async inject(): Promise<Injection> {
      attempted = true;
      const { bracket: done } = await bracket(() => plan.act());
      hits.push({ target: targetName, action: plan.action, atNs: done.startedNs, bracket: done });
      return { bracket: done, mode: 'broker_action' };
    },
    remove() {
      removal ??= (async (): Promise<FaultRemoval> => {
        const startedNs = nowNs();
        if (!attempted || !plan.undo) return { startedNs, completedNs: nowNs(), method: 'nothing_to_undo', problems: [] };
        try {
          await plan.undo();
          return { startedNs, completedNs: nowNs(), method: 'undone', problems: [] };
        } catch (error) {
          return {
            startedNs,
            completedNs: nowNs(),
            method: 'undone',
            problems: [`${definition.kind} not undone: ${(error as Error).message}`],
          };
        }
      })();
      return removal;
    },
  };
}
