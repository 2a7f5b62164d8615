/**
 * What a load run refuses before it touches anything (pure over the workload and the adapter
 * registry): acks the client's adapter lacks, and faults the run cannot place.
 */
import { adapterOf } from '../client/registry';
import type { AckSupport } from '../client/api';
import { ConfigError, describeError } from '../errors';
import { faultDefinition } from '../faults/kinds/registry';
import type { LoadWorkload } from './workload';

/** What the adapter interface lets a load run do: the acks it has. @throws ConfigError */
export function checkSupported(workload: LoadWorkload): void {
  let acks: AckSupport | undefined;
  try {
    acks = adapterOf({ name: workload.client.name }).acks;
  } catch (error) {
    throw new ConfigError('--client', `a client with an adapter (${describeError(error).replace(/^.*known: /, '')})`, workload.client.name);
  }
  if (workload.ack.kind === 'multiple' && acks?.multiple !== true)
    throw new ConfigError(
      '--ack',
      `auto, manual${acks?.nack ? ' or nack:FRACTION' : ''} for ${workload.client.name}: its adapter has no multiple ack (the library settles one delivery at a time)`,
      `multiple:${workload.ack.every}`,
    );
  if (workload.ack.kind === 'nack' && acks?.nack !== true)
    throw new ConfigError('--ack', `auto or manual for ${workload.client.name}: its adapter has no nack`, `nack:${workload.ack.fraction}`);
  // Acking every N-th delivery with prefetch below N would stall: the broker stops at the prefetch.
  if (workload.ack.kind === 'multiple' && workload.prefetch > 0 && workload.prefetch < workload.ack.every)
    throw new ConfigError(
      '--ack/--prefetch',
      `a prefetch of at least ${workload.ack.every} (or 0) with multiple:${workload.ack.every}`,
      `prefetch ${workload.prefetch}`,
    );
  if (workload.queueType === 'stream' && (workload.ack.kind === 'auto' || workload.prefetch === 0))
    throw new ConfigError(
      '--ack/--prefetch',
      'manual ack with a prefetch > 0 for a stream queue (RabbitMQ requires both)',
      `${workload.ack.kind}, prefetch ${workload.prefetch}`,
    );
}

/** Where the run's faults must be injected. */
export interface FaultPlacement {
  /** A network fault is scheduled: it is injected in the proxy. */
  readonly needsProxy: boolean;
  /** An alarm or a node fault is scheduled: the run starts a node of its own for it. */
  readonly ownNode: boolean;
}

/** Where the workload's faults go. @throws ConfigError for a fault the run cannot place */
export function placeFaults(workload: LoadWorkload, viaProxy: boolean): FaultPlacement {
  const needsProxy = workload.faults.some((fault) => faultDefinition(fault.spec.kind).layer === 'network');
  if (needsProxy && !viaProxy)
    throw new ConfigError('--no-proxy', 'left out when a network fault is scheduled (it is injected in the proxy)', 'given');
  // A fault acted out by the suite's own consumer (a held delivery) needs the matrix's consumers: a load run's ack everything.
  const held = workload.faults.find((fault) => faultDefinition(fault.spec.kind).holdsDelivery);
  if (held)
    throw new ConfigError(
      '--fault',
      `not ${held.spec.kind} in a load run (its consumers acknowledge every delivery; the fault matrix runs it: npm run bench:faults)`,
      held.spec.kind,
    );
  const onCluster = workload.faults.find((fault) => faultDefinition(fault.spec.kind).broker === 'cluster');
  if (onCluster)
    throw new ConfigError('--fault', `not ${onCluster.spec.kind} in a load run (it needs the benchmark cluster)`, onCluster.spec.kind);
  // A fault that affects every client of its node (an alarm, a node fault) never acts on the shared
  // broker: always on a node this run starts for it (its own name, ports and data), reached through
  // a proxy entry of its own.
  const ownNode = workload.faults.some((fault) => faultDefinition(fault.spec.kind).broker === 'own_node');
  if (ownNode && !viaProxy)
    throw new ConfigError(
      '--no-proxy',
      'left out when an alarm or a node fault is scheduled (the run reaches its own node through the proxy)',
      'given',
    );
  return { needsProxy, ownNode };
}
