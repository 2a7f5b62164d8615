/**
 * A row a client cannot run as named (pure): its adapter declares a capability the row's layout
 * needs and the library lacks. Nothing is measured; the result says so (`cannot_run`, and the
 * same words in its notes), with the row's parameters as a run would name them, no figures, no
 * finding (the client did nothing wrong) and no harness problem (the harness did its part), so
 * the test passes and the report shows the row as `cannot run`.
 */
import type { ClientAdapter } from '../client/api';
import type { ResultDraft } from '../results/rawResult';
import { planConsumers, type ThreadPlan } from '../suite-kit/distribution';
import type { WorkloadOptions } from './options';

/**
 * Why `adapter`'s library cannot run a workload laid out as `plan`, or undefined when it can: a
 * library with one subscription per queue per connection (`consumersPerQueue: 'one'`) cannot
 * have two consumers of the queue on one connection. A row that does not bound its threads runs
 * such a library one consumer a connection instead (./measureScenario.ts); a row that does
 * (hundreds of consumers on at most four threads) measures that very layout, so it cannot run.
 * @example cannotRunReason(fooFooMqAdapter, { consumers: 20, maxConsumerThreads: 4, maxChannelsPerConnection: 128 }) // 'foo-foo-mq keeps ...'
 */
export function cannotRunReason(
  adapter: Pick<ClientAdapter, 'library' | 'consumersPerQueue'>,
  layout: Pick<WorkloadOptions, 'consumers' | 'maxConsumerThreads' | 'maxChannelsPerConnection'>,
): string | undefined {
  if (adapter.consumersPerQueue !== 'one') return undefined;
  const plan = planOf(layout);
  const connections = plan.flatMap((thread) => thread.connections);
  const mostOnOne = Math.max(...connections);
  if (mostOnOne <= 1) return undefined;
  return (
    `${adapter.library} keeps one subscription per queue per connection (its adapter's consumersPerQueue: 'one'), ` +
    `and this row puts ${layout.consumers} consumers of one queue on ${connections.length} connection(s) over ${plan.length} worker thread(s) ` +
    `(up to ${mostOnOne} on a connection): it cannot run as named, and one connection per consumer would be another row`
  );
}

/** The consumer threads and connections a workload of these options runs on (./workload.ts plans it the same way). */
export function planOf(layout: Pick<WorkloadOptions, 'consumers' | 'maxConsumerThreads' | 'maxChannelsPerConnection'>): ThreadPlan[] {
  return planConsumers(layout.consumers, {
    maxThreads: layout.maxConsumerThreads,
    maxChannelsPerConnection: layout.maxChannelsPerConnection,
  });
}

/** The result of a row that cannot run: its parameters as a run would name them, no figures, the reason. */
export function cannotRunDraft(input: {
  readonly scenario: string;
  readonly client: ResultDraft['client'];
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly reason: string;
}): ResultDraft {
  return {
    name: input.scenario,
    client: input.client,
    parameters: { ...input.parameters },
    metrics: {},
    notes: [`cannot run: ${input.reason}`],
    findings: [],
    harness_problems: [],
    cannot_run: input.reason,
    measured_ms: 0,
  };
}
