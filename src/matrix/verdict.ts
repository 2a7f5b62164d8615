/**
 * A fault-matrix cell's verdict (pure), decided in this order: ⚠ when the harness's own part
 * failed (the fault not injected, no probe published, a bound of the harness's own hit: not a
 * verdict on the client, and the run fails); else ❌ with the gist of the client's findings; else
 * ✅ `detection / recovery after removal` in ms, saying what told the client when it was not the
 * fault's own signal (its re-consume refused, another kind).
 */
import type { FaultDefinition } from '../faults/model';
import type { Metric } from '../results/rawResult';
import type { MatrixThread as MatrixThreadDetail, MatrixVerdict } from '../schemaTypes';
import { seconds } from './findings';
import type { MatrixOutcome } from './scenario';

/**
 * What went wrong in the harness's own part of the cell: what the cell recorded, and what its
 * data shows (no injection; a network fault the proxy's timeline saw act on no connection; no
 * probe published after the removal).
 */
export function harnessProblemsOf(
  outcome: MatrixOutcome,
  definition: Pick<FaultDefinition, 'layer' | 'actsUnrecorded'>,
  actedConnections: number,
): string[] {
  const problems = [...outcome.harnessProblems];
  if (outcome.injection === null) problems.push('the fault was not injected');
  else if (
    definition.layer === 'network' &&
    definition.actsUnrecorded !== true &&
    outcome.faultEvents !== null &&
    outcome.proxyServer.kind === 'embedded' &&
    actedConnections === 0
  )
    problems.push('the fault was not injected: the proxy saw it act on no connection');
  if (outcome.removal !== null && outcome.probes.sent === 0)
    problems.push(`no probe could be published after the removal (${outcome.probes.failed} attempt(s) failed)`);
  return problems;
}

export function verdictOf(
  harnessProblems: readonly string[],
  findings: readonly string[],
  metrics: Readonly<Record<string, Metric>>,
  threads: readonly MatrixThreadDetail[],
  outcome: MatrixOutcome,
): MatrixVerdict {
  if (harnessProblems.length > 0)
    return {
      ok: false,
      class: 'harness',
      cell: `⚠ harness: ${harnessProblems[0]!.slice(0, 80)}`,
      findings: [],
      harness_problems: [...harnessProblems],
    };
  if (findings.length > 0) return { ok: false, class: 'finding', cell: `❌ ${gist(findings, outcome)}`, findings: [...findings] };
  const number = (metric: string) => metrics[metric]?.value ?? null;
  const detection = number('error_propagation_latency_ms');
  const recovery = number('recovery_after_removal_ms');
  const noticed = detection === null ? 'not told' : formatMs(detection);
  const told = toldBy(threads);
  return { ok: true, class: 'ok', cell: `✅ ${noticed} / ${recovery === null ? '—' : formatMs(recovery)} ms${told}`, findings: [] };
}

/**
 * The verdict's class, the same when a cell behaves the same run after run: ✅ with what told it,
 * ❌ with what failed, or ⚠; figures left out (`✅ N / N ms`, `❌ N publishes hung`).
 */
export function verdictClass(verdict: Pick<MatrixVerdict, 'cell'>): string {
  return verdict.cell.startsWith('⚠') ? '⚠ harness' : verdict.cell.replace(/\d+(?:\.\d+)?/g, 'N');
}

/**
 * ` · told by its own basic.consume refused (404)` when a thread noticed by something other than
 * the fault's own signal: every such way the threads were told, in a fixed order (never just the
 * first thread's, which would make the cell's words depend on which thread came first).
 */
function toldBy(threads: readonly MatrixThreadDetail[]): string {
  const refusals = threads
    .filter((thread) => thread.noticed_as === 'refused_retry')
    .map((thread) => {
      const request = thread.frames_during_fault?.find((frame) => frame.from === 'client');
      const answer = thread.frames_during_fault?.find((frame) => frame.from === 'broker' && (frame.reply_code ?? 0) >= 400);
      return `${request?.method ?? 'request'} refused (${answer?.reply_code ?? '?'})`;
    });
  if (refusals.length > 0) return ` · told by its own ${distinctSorted(refusals).join(', ')}, not the fault`;
  const others = threads.filter((thread) => thread.noticed_as === 'other').map((thread) => thread.detected_by.replace(/_/g, ' '));
  return others.length > 0 ? ` · told as ${distinctSorted(others).join(', ')}` : '';
}

const distinctSorted = (words: readonly string[]): string[] => [...new Set(words)].sort();

function formatMs(value: number): string {
  return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

/** A few words for the cell: what failed, counted. */
function gist(findings: readonly string[], outcome: MatrixOutcome): string {
  const parts: string[] = [];
  const counted = (pattern: RegExp) => findings.filter((finding) => pattern.test(finding)).length;
  if (counted(/not noticed within/) > 0) parts.push(`not noticed within ${seconds(outcome.options.detectionBoundMs)}`);
  if (counted(/told by the broker at/) > 0) parts.push('told by the broker, not its heartbeat');
  if (counted(/stopped consuming/) > 0) parts.push('stopped consuming');
  if (counted(/publisher never came back/) > 0) parts.push('publisher not back');
  if (counted(/: not back within/) > 0) parts.push('not back');
  if (counted(/no back-pressure signal/) > 0) parts.push('no back-pressure signal');
  if (counted(/back-pressure signal already on under the ordinary load/) > 0)
    parts.push('back-pressure signal on already before the stall');
  const hung = /^(\d+) publish\(es\) hung/.exec(findings.find((finding) => /publish\(es\) hung/.test(finding)) ?? '');
  if (hung) parts.push(`${hung[1]} publishes hung`);
  const lost = /^(\d+) confirmed message\(s\) lost/.exec(findings.find((finding) => /confirmed message\(s\) lost/.test(finding)) ?? '');
  if (lost) parts.push(`${lost[1]} confirmed lost`);
  if (counted(/nobody handled/) > 0) parts.push('unhandled error');
  if (counted(/close\(\).*did not return/) > 0) parts.push('close() hung');
  else if (counted(/close\(\) of a blocked connection hung in the library/) > 0) parts.push('close() hangs while blocked');
  else if (counted(/close\(\) did not end by itself/) > 0) parts.push('close() cut short');
  if (counted(/thread failed|could not|never came|did not finish/) > 0 && parts.length === 0) parts.push('thread failed');
  return parts.length > 0 ? parts.join(', ') : leadingClause(findings[0]!);
}

/**
 * A finding the gist has no words for, cut to its first clause (`thread 0: ` and what follows its
 * first colon or parenthesis left to the findings list): whole words, never a word cut in two.
 */
export function leadingClause(finding: string): string {
  const clause = finding
    .replace(/^thread \d+: /, '')
    .split(/: | \(/)[0]!
    .trim();
  if (clause.length <= GIST_MAX_CHARS) return clause;
  const cut = clause.slice(0, GIST_MAX_CHARS + 1);
  return `${cut.slice(0, cut.lastIndexOf(' ')).trim()} …`;
}

/** The longest a cell's words run before the findings list takes over. */
const GIST_MAX_CHARS = 60;
