/**
 * A fault made of node actions (kill, pause, stop): the hit and its undoing, with every step
 * recorded. `remove` never throws: what could not be undone is returned in `problems`, so a
 * scenario's `finally` always gets the node back or says why not.
 */
import { nowNs, type Bracket } from '../../measure/clock';
import type { Fault, FaultDefinition, FaultHit, FaultOptions, FaultRemoval, FaultStep, FaultTarget, Injection } from '../model';

export interface NodeActionPlan {
  readonly target: FaultTarget;
  /** Does the damage; records its hits (one per node) through `hit`. */
  act(hit: (node: string, action: string, bracket: Bracket) => void, step: (entry: FaultStep) => void): Promise<void>;
  /** Undoes whatever is still undone; returns the problems (empty: all back). */
  undo(step: (entry: FaultStep) => void): Promise<string[]>;
}

export function nodeActionFault(definition: FaultDefinition, options: FaultOptions, plan: NodeActionPlan): Fault {
  const hits: FaultHit[] = [];
  const steps: FaultStep[] = [];
  let removal: Promise<FaultRemoval> | undefined;
  const step = (entry: FaultStep) => steps.push(entry);
  return {
    kind: definition.kind,
    definition,
    target: plan.target,
    parameters: options,
    hits,
    steps,
    prepare: async () => undefined,
    async inject(): Promise<Injection> {
      const startedNs = nowNs();
      await plan.act((node, action, bracket) => hits.push({ target: node, action, atNs: bracket.startedNs, bracket }), step);
      return {
        bracket: { startedNs: hits[0]?.atNs ?? startedNs, completedNs: hits[0]?.bracket.completedNs ?? nowNs() },
        mode: 'node_action',
      };
    },
    remove() {
      removal ??= (async (): Promise<FaultRemoval> => {
        const startedNs = nowNs();
        const problems = await plan.undo(step).catch((error: unknown) => [`${definition.kind} not undone: ${(error as Error).message}`]);
        return { startedNs, completedNs: nowNs(), method: hits.length === 0 ? 'nothing_to_undo' : 'undone', problems };
      })();
      return removal;
    },
  };
}
