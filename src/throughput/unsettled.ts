/**
 * The finding of a throughput configuration whose client left publishes unsettled (pure): which
 * publishes never settled within the publish bound (each stopped its publisher for the round, see
 * publishThread.ts), the bound, and the client with its own words on how it confirms.
 */
import type { ClientInfo } from '../client/api';
import { clientEvidence, type Finding } from '../suite-kit/findings';
import { unsettledPublishes, type PublishThroughputOutcome } from './measure';
import type { UnsettledPublish } from './publishThread';

/** At most this many publishes named in the evidence. */
const EXAMPLES = 5;

/** `round 3 (warm-up): publisher 38 at its publish 15 of 100, publisher 82 at its publish 4 of 100`. */
function namedPublishes(publishes: readonly UnsettledPublish[], messagesPerThread: number): string {
  const rounds = new Map<string, string[]>();
  for (const each of publishes.slice(0, EXAMPLES)) {
    const round = `round ${each.round}${each.warmup ? ' (warm-up)' : ''}`;
    rounds.set(round, [...(rounds.get(round) ?? []), `publisher ${each.publisher} at its publish ${each.publish} of ${messagesPerThread}`]);
  }
  const more = publishes.length - Math.min(publishes.length, EXAMPLES);
  const named = [...rounds].map(([round, each]) => `${round}: ${each.join(', ')}`).join('; ');
  return `${named}${more > 0 ? `; and ${more} more` : ''}`;
}

/**
 * Every publish of the replicates that never settled within the publish bound, as one finding;
 * undefined when each one settled.
 */
export function unsettledPublishFinding(
  outcomes: readonly PublishThroughputOutcome[],
  client: Pick<ClientInfo, 'library' | 'version' | 'settings'>,
): Finding | undefined {
  const publishes = outcomes.flatMap((outcome) => unsettledPublishes(outcome));
  const [first] = outcomes;
  if (!first || publishes.length === 0) return undefined;
  const { mode, publishBoundMs, messagesPerThread } = first.workload;
  const what = mode === 'confirm' ? 'confirm(s) never settled' : 'publish(es) never handed over';
  return {
    kind: 'publish_hung',
    text: `${publishes.length} ${what} within the publish bound of ${publishBoundMs} ms: each stopped its publisher there (an application awaiting it would still be waiting), and the measurement after that round`,
    count: publishes.length,
    evidence: [namedPublishes(publishes, messagesPerThread), clientEvidence(client)],
  };
}
