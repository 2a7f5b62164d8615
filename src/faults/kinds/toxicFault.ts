/**
 * A fault made of proxy toxics (reset_peer, timeout, latency), on the shared pipeline of
 * ../toxics.ts: added when injected, or armed at toxicity 0 in `prepare` (before the clients
 * connect: real Toxiproxy sends a true RST only on links that started with the toxic in their
 * chain) and fired by `inject`. Removal never wedges real Toxiproxy (removeToxicSafely).
 */
import { nowNs } from '../../measure/clock';
import type { Fault, FaultDefinition, FaultHit, FaultRemoval, FaultOptions, Injection } from '../model';
import { armToxics, injectToxics, type ActiveToxic, type ArmedToxic, type ProxyTarget } from '../toxics';
import type { ToxicSpec } from '../toxiproxyClient';

export interface ToxicFaultPlan {
  readonly proxy: ProxyTarget;
  readonly specs: readonly ToxicSpec[];
  /** Armed in `prepare`, fired in `inject`. */
  readonly armed: boolean;
}

export function toxicFault(definition: FaultDefinition, options: FaultOptions, plan: ToxicFaultPlan): Fault {
  const hits: FaultHit[] = [];
  let armed: ArmedToxic | undefined;
  let active: ActiveToxic | undefined;
  let removal: Promise<FaultRemoval> | undefined;
  const type = plan.specs.map((spec) => spec.type).join('+');
  return {
    kind: definition.kind,
    definition,
    target: { type: 'proxy_entry', name: plan.proxy.name },
    toxic: [...new Set(plan.specs.map((spec) => spec.type))].join('+'),
    parameters: options,
    hits,
    steps: [],
    async prepare() {
      if (plan.armed) armed ??= await armToxics(plan.proxy, type, plan.specs);
    },
    async inject(): Promise<Injection> {
      active = armed ? await armed.fire() : await injectToxics(plan.proxy, type, plan.specs);
      hits.push({
        target: plan.proxy.name,
        action: active.injection === 'armed' ? 'fired' : 'added',
        atNs: active.injected.startedNs,
        bracket: active.injected,
      });
      return { bracket: active.injected, mode: active.injection };
    },
    remove() {
      removal ??= (async (): Promise<FaultRemoval> => {
        const held = active ?? armed;
        if (!held) {
          const now = nowNs();
          return { startedNs: now, completedNs: now, method: 'nothing_to_undo', problems: [] };
        }
        const removed = await held.remove();
        return { ...removed, problems: [] };
      })();
      return removal;
    },
  };
}
