/**
 * A result's verdict on the client, read the same way for every suite (pure): its findings (what
 * the client did wrong, with the evidence) and its harness problems (what the harness failed to
 * do: no verdict on the client). Suites write them into the raw result's `findings` and
 * `harness_problems`; a fault-matrix cell keeps its own verdict in its details, read here too.
 */
import type { RawResult } from './rawResult';
import type { MatrixDetails } from '../schemaTypes';

/** A finding as the report and the summary show it, whichever suite wrote it. */
export interface FindingView {
  /** `producer thread 1: 3 error(s) nobody handled …`: where it was found, then what. */
  readonly text: string;
  /** Where alone (`producer thread 1`, `the workload`); null when the finding names no part of the measurement. */
  readonly where: string | null;
  /** What alone, without where. */
  readonly what: string;
  readonly evidence: readonly string[];
}

/** The details of a result that keeps its verdict in them (a fault-matrix cell); undefined for the rest. */
function verdictDetails(result: RawResult): MatrixDetails | undefined {
  return result.details?.kind === 'fault_matrix' ? (result.details as unknown as MatrixDetails) : undefined;
}

/**
 * The result's findings; undefined when it carries no verdict on the client (a suite that does
 * not judge, a result written before findings were recorded).
 */
export function findingsOf(result: RawResult): FindingView[] | undefined {
  if (result.findings)
    return result.findings.map((finding) => ({
      text: `${finding.where ? `${finding.where}: ` : ''}${finding.text}`,
      where: finding.where || null,
      what: finding.text,
      evidence: finding.evidence,
    }));
  const verdict = verdictDetails(result)?.verdict;
  return verdict ? verdict.findings.map((text) => ({ text, where: null, what: text, evidence: [] })) : undefined;
}

/** What the harness failed to do in this result (empty: nothing). */
export function harnessProblemsOf(result: RawResult): readonly string[] {
  return result.harness_problems ?? verdictDetails(result)?.harness_problems ?? [];
}
