/**
 * verifications.json: appended under its lock, following its schema, a corrupt file moved aside
 * (never overwritten), and which verification a report cites; the witnesses' targets as checks
 * and the verdict of the whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RawResult } from '../../src/results/rawResult';
import { appendVerification, citedVerification, readVerifications, type Verification } from '../../src/results/verifications';
import { verificationText } from '../../src/report/verificationText';
import { formatVerification } from '../../src/cli/verifyCommand';
import { verificationVerdict, witnessChecks } from '../../src/verify/checks';

const MACHINE = { hostname: 'ci-1', cpu_model: 'Some CPU', cpu_count: 2, platform: 'linux-x64' };

function verification(overrides: Partial<Verification> = {}): Verification {
  return {
    verified_at: '2026-11-25T10:00:00.000Z',
    fingerprint: 'aaaaaaaa',
    git_commit: '0123456789abcdef',
    machine: MACHINE,
    run_id: 'run_20261125_100000_aaaaaaaa',
    test_name_filter: null,
    checks: [],
    capture: { status: 'agreed', detail: '5 injection(s)' },
    aa: null,
    verdict: 'sound',
    ...overrides,
  };
}

describe('verifications.json', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-verifications-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appends, oldest first, and reads back what it wrote', () => {
    expect(readVerifications(dir)).toEqual({ verifications: [] });
    appendVerification(dir, verification());
    appendVerification(dir, verification({ fingerprint: 'bbbbbbbb', verdict: 'unsound' }));
    expect(readVerifications(dir).verifications.map((one) => one.fingerprint)).toEqual(['aaaaaaaa', 'bbbbbbbb']);
  });

  it('moves a corrupt file aside before writing, so nothing is lost', () => {
    fs.writeFileSync(path.join(dir, 'verifications.json'), '{ not json');
    expect(readVerifications(dir).corrupt?.reason).toMatch(/^not valid JSON/);
    const written = appendVerification(dir, verification(), { now: () => new Date('2026-11-25T12:00:00Z') });
    expect(written.corrupt?.movedTo).toMatch(/verifications\.corrupt-20261125T120000_000Z\.json$/);
    expect(fs.readFileSync(written.corrupt!.movedTo!, 'utf8')).toBe('{ not json');
    expect(readVerifications(dir).verifications).toHaveLength(1);
  });

  it('refuses a verification that does not follow the schema, leaving the file as it was', () => {
    appendVerification(dir, verification());
    const before = fs.readFileSync(path.join(dir, 'verifications.json'), 'utf8');
    expect(() => appendVerification(dir, verification({ verdict: 'great' as Verification['verdict'] }))).toThrow(/verdict/);
    expect(fs.readFileSync(path.join(dir, 'verifications.json'), 'utf8')).toBe(before);
  });

  it('never writes a password', () => {
    appendVerification(dir, verification({ capture: { status: 'skipped', detail: 'amqp://guest:s3cret@host' } }), { secrets: ['s3cret'] });
    expect(fs.readFileSync(path.join(dir, 'verifications.json'), 'utf8')).not.toContain('s3cret');
  });
});

describe('citedVerification', () => {
  const earlier = verification({ fingerprint: 'old00000', verified_at: '2026-11-20T00:00:00.000Z' });
  const thisBuild = verification({ fingerprint: 'new00000', verified_at: '2026-11-25T00:00:00.000Z' });
  const otherMachine = verification({ fingerprint: 'new00000', machine: { ...MACHINE, cpu_count: 64 } });
  const run = new Date('2026-11-24T00:00:00Z');

  it('cites the latest verification of the build on the same kind of machine (any host name)', () => {
    expect(citedVerification([earlier, thisBuild, otherMachine], 'new00000', { ...MACHINE, hostname: 'ci-2' } as never, run)).toEqual({
      verification: thisBuild,
      sameBuild: true,
    });
  });

  it('else the nearest earlier one, said to be of another build; else none', () => {
    expect(citedVerification([earlier, otherMachine], 'new00000', MACHINE, run)).toEqual({ verification: earlier, sameBuild: false });
    expect(citedVerification([otherMachine], 'new00000', MACHINE, run)).toBeNull();
  });

  it('the report says which, and how to get one', () => {
    expect(verificationText(null)).toMatch(/not verified .*npm run bench:verify/);
    expect(verificationText({ verification: thisBuild, sameBuild: true })).toMatch(
      /^✅ sound on this build, 2026-11-25: 0 of 0 witness checks met, fault timeline agreed/,
    );
    expect(verificationText({ verification: earlier, sameBuild: false })).toContain(
      'an earlier build (`old00000`, commit `01234567`), not this one',
    );
    expect(verificationText({ verification: verification({ test_name_filter: 'proxy' }), sameBuild: true })).toContain(
      '(partial: only `-t proxy`)',
    );
  });
});

describe('witness checks and the verdict', () => {
  const result = (name: string, targets: RawResult['targets'], value: number | null): RawResult =>
    ({
      schema_version: 1,
      name,
      category: 'proxy',
      test_id: `x::${name}`,
      parameters: { threads: 10 },
      metrics: value === null ? {} : { ratio_percent: { value, unit: '%' } },
      targets,
      timestamp: '2026-11-25T10:00:00.000Z',
      fingerprint: 'aaaaaaaa',
    }) as unknown as RawResult;
  const target = { metric: 'ratio_percent', comparator: '>' as const, threshold: 90, unit: '%' };

  it('takes the targets of witness results only, with their verdict and interval', () => {
    const checks = witnessChecks([
      result('proxy_overhead', [{ ...target, met: true, verdict: 'met', interval: { low: 91, high: 99, confidence: 0.98, n: 7 } }], 95),
      result('publish_throughput', [{ ...target, met: false }], 10),
      result('consume_harness_overhead', [{ ...target, met: null }], null),
    ]);
    expect(checks.map((check) => [check.witness, check.label, check.configuration, check.verdict, check.interval?.n ?? null])).toEqual([
      ['proxy_overhead', 'Proxy overhead', '10 threads', 'met', 7],
      ['consume_harness_overhead', 'Consume harness/bare', '10 threads', 'no value', null],
    ]);
  });

  it('keeps a witness whose two sides differ apart from met and missed, with the sides in words', () => {
    const differ = {
      ...target,
      comparator: '<' as const,
      threshold: 110,
      met: null,
      verdict: 'differ' as const,
      reason: 'the two sides differ: ratio 48.3% ...',
    };
    const inconclusive = { ...target, met: null, verdict: 'inconclusive' as const, reason: 'inconclusive: [80%, 120%] ...' };
    const [sides, straddles] = witnessChecks([
      result('recovery_harness_overhead', [differ], 48.3),
      result('consume_harness_overhead', [inconclusive], 95),
    ]);
    expect(sides).toMatchObject({ verdict: 'differ', value: 48.3, detail: 'the two sides differ: ratio 48.3% ...' });
    expect(straddles).toMatchObject({ verdict: 'inconclusive', detail: 'inconclusive: [80%, 120%] ...' });
    // Never sound: the witness compared different work, so it says nothing either way.
    expect(verificationVerdict([check('met'), sides!], agreed, null, true)).toBe('inconclusive');
    expect(verificationVerdict([sides!, check('missed')], agreed, null, true)).toBe('unsound');
    const line = formatVerification(verification({ checks: [sides!], verdict: 'inconclusive' }), 0).split('\n');
    expect(line[2]).toMatch(/^≠ Recovery harness\/bare · 10 threads: ratio_percent 48\.3 %, target < 110 %: the two sides differ$/);
    expect(line[3]).toBe('    the two sides differ: ratio 48.3% ...');
  });

  const agreed = { status: 'agreed' as const, detail: '' };
  const check = (verdict: Verification['checks'][number]['verdict']) => ({
    ...witnessChecks([result('proxy_overhead', [{ ...target, met: true }], 95)])[0]!,
    verdict,
  });
  it.each([
    [[check('met'), check('met')], agreed, null, 'sound'],
    [[check('met'), check('inconclusive')], agreed, null, 'inconclusive'],
    [[check('met'), check('missed')], agreed, null, 'unsound'],
    [[check('met')], { status: 'disagreed' as const, detail: '' }, null, 'unsound'],
    [
      [check('met')],
      agreed,
      { runs: 3, false_alarm_percent: 12, max_false_alarm_percent: 5, threshold_percent: 10, gate_passed: true, passed: false },
      'unsound',
    ],
    [[check('met'), check('no value')], agreed, null, 'incomplete'],
    [[], agreed, null, 'incomplete'],
    [[check('met')], { status: 'skipped' as const, detail: '' }, null, 'sound'],
  ])('%#: the verdict of the whole', (checks, capture, aa, expected) => {
    expect(verificationVerdict(checks, capture, aa, true)).toBe(expected);
  });
});
