/**
 * The finding of a throughput configuration whose client did not finish a round within the round
 * bound (pure): the round was cut there, and what was published (in confirm mode, confirmed)
 * within it, over how long, and the rate that implies, are the result: the client is slow for
 * the workload, which says something about the client, not about the harness.
 */
import type { ClientInfo } from '../client/api';
import { clientEvidence, type Finding } from '../suite-kit/findings';
import { cutRound, type PublishThroughputOutcome } from './measure';
import { roundFigure } from './rates';

/** `replicate 1, round 1 (warm-up): 4123 of 10000 in 20013 ms (206 msg/s)`. */
function cutRoundLine(outcome: PublishThroughputOutcome, replicate: number): string | undefined {
  const cut = cutRound(outcome);
  if (!cut) return undefined;
  const figures = `${cut.published} of ${cut.expected} in ${Math.round(cut.durationMs)} ms (${roundFigure(cut.msgsPerSec)} msg/s)`;
  return `replicate ${replicate}, round ${cut.round}${cut.warmup ? ' (warm-up)' : ''}: ${figures}`;
}

/** The client's settings that decide how soon a small write leaves (Nagle), where its adapter names them. */
function nagleSettings(client: Pick<ClientInfo, 'settings'>): string[] {
  return Object.entries(client.settings)
    .filter(([name]) => /no_?delay/i.test(name))
    .map(([name, value]) => `${name}: ${String(value)}`);
}

/**
 * Every round of the replicates cut at the round bound, as one finding; undefined when every round
 * finished within it.
 */
export function incompleteRoundFinding(
  outcomes: readonly PublishThroughputOutcome[],
  client: Pick<ClientInfo, 'library' | 'version' | 'settings'>,
): Finding | undefined {
  const lines = outcomes.flatMap((outcome, index) => cutRoundLine(outcome, index + 1) ?? []);
  const [first] = outcomes;
  if (!first || lines.length === 0) return undefined;
  const { mode, roundBoundMs, messagesPerRound } = first.workload;
  const what = mode === 'confirm' ? 'published and confirmed' : 'published';
  return {
    kind: 'round_incomplete',
    text: `${lines.length} round(s) of ${messagesPerRound} messages not finished within the round bound of ${roundBoundMs} ms: each was cut there, its figure is what the client ${what} within it (an incomplete round, not a complete round's rate), and the measurement stopped after it`,
    count: lines.length,
    evidence: [...lines, clientEvidence(client), ...nagleSettings(client)],
  };
}
