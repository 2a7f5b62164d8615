/**
 * Which scheduled faults a fleet can run (reads the fault registry, names no fault). Each agent
 * applies the workload's schedule itself, on the one start: a fault must therefore act on what
 * belongs to that agent alone — its own proxy entry (a network fault) or its own connections by
 * name (the broker closing them). A fault on something the agents share (a queue, an exchange, a
 * node) would be injected once per agent; those run without --agents.
 */
import { ConfigError } from '../errors';
import { createFault, faultDefinition } from '../faults/kinds/registry';
import type { BrokerActions, FaultContext, FaultTarget } from '../faults/model';
import type { ToxiproxyClient } from '../faults/toxiproxyClient';
import type { LoadWorkload } from '../load/workload';

/** Targets that belong to one agent. */
const PER_AGENT_TARGETS: readonly FaultTarget['type'][] = ['proxy_entry', 'connections'];

/**
 * A context that lets any fault be built (never injected) to read its target: building touches
 * nothing, and a kind that needs a node fails to build, which says it targets a node.
 */
function probeContext(): FaultContext {
  const refuse = () => Promise.reject(new Error('a probe context acts on nothing'));
  const broker: BrokerActions = {
    node: 'probe',
    closeConnections: refuse,
    deleteExchange: refuse,
    restoreExchange: refuse,
    deleteQueue: refuse,
    restoreQueue: refuse,
    setMemoryAlarm: refuse,
  };
  return {
    proxy: { client: {} as ToxiproxyClient, name: 'probe' },
    broker,
    connectionNamePrefix: 'probe',
    queues: ['probe'],
    exchange: 'probe',
  };
}

/** What a fault acts on, from its own definition. */
export function targetTypeOf(fault: LoadWorkload['faults'][number]): FaultTarget['type'] {
  const broker = faultDefinition(fault.spec.kind).broker;
  if (broker !== 'shared') return broker === 'cluster' ? 'cluster' : 'node';
  try {
    return createFault(fault.spec, probeContext()).target.type;
  } catch {
    return 'node';
  }
}

/** @throws ConfigError naming the first scheduled fault a fleet cannot run */
export function checkFleetFaults(workload: LoadWorkload): void {
  for (const fault of workload.faults) {
    const target = targetTypeOf(fault);
    if (!PER_AGENT_TARGETS.includes(target))
      throw new ConfigError(
        '--fault',
        `a fault on each agent's own connections or proxy entry with --agents (${fault.text} acts on a shared ${target}: every agent would inject it; run it without --agents)`,
        fault.text,
      );
  }
}
