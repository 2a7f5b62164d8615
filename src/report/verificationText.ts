/**
 * The report's one line on the harness's own checks (pure): the verification it cites (`bench
 * verify`, src/results/verifications.ts) — of this build, of an earlier one, or none.
 */
import type { CitedVerification } from '../results/verifications';

const VERDICT_WORDS = {
  sound: '✅ sound',
  unsound: '❌ unsound',
  inconclusive: '➖ inconclusive',
  incomplete: '⚠️ incomplete',
} as const;

export function verificationText(cited: CitedVerification | null): string {
  if (cited === null)
    return 'not verified on this kind of machine: run `npm run bench:verify` to check the harness itself (its witnesses and the fault timeline against a packet capture)';
  const one = cited.verification;
  const met = one.checks.filter((check) => check.verdict === 'met').length;
  const capture =
    one.capture.status === 'skipped'
      ? `capture skipped (${one.capture.detail})`
      : `fault timeline ${one.capture.status} with a packet capture`;
  const aa = one.aa === null ? '' : `, A/A ${one.aa.passed ? 'passed' : 'failed'} (worst pair ${one.aa.false_alarm_percent}% flagged)`;
  const which = cited.sameBuild
    ? 'this build'
    : `an earlier build (\`${one.fingerprint}\`, commit \`${one.git_commit.slice(0, 8)}\`), not this one`;
  const partial = one.test_name_filter === null ? '' : ` (partial: only \`-t ${one.test_name_filter}\`)`;
  return `${VERDICT_WORDS[one.verdict]}${partial} on ${which}, ${one.verified_at.slice(0, 10)}: ${met} of ${one.checks.length} witness checks met, ${capture}${aa}${one.run_id ? ` (run \`${one.run_id}\`)` : ''}`;
}
