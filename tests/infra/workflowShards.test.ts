/**
 * The sharded run in .github/workflows/benchmarks.yml, checked for what makes it work end to
 * end (GitHub's schema check of the whole file is in workflow.test.ts): a matrix of shards each
 * running `bench run --shard i/n` and uploading its raw-results folder with the hidden shard
 * manifest, and a merge job that downloads every shard's artifact and runs `bench merge` on them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { resolveShardOption } from '../../src/cli/shard';
import { PROJECT_ROOT, resolveConfig } from '../../src/config';
import { SHARD_MANIFEST_FILE_NAME } from '../../src/results/shardManifest';

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
}

interface Job {
  readonly if?: string;
  readonly needs?: string | readonly string[];
  readonly strategy?: { readonly 'fail-fast'?: boolean; readonly matrix?: { readonly shard?: readonly number[] } };
  readonly services?: Readonly<Record<string, { readonly image: string }>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly 'timeout-minutes'?: number;
  readonly steps: readonly Step[];
}

const workflow = parseDocument(fs.readFileSync(path.join(PROJECT_ROOT, '.github/workflows/benchmarks.yml'), 'utf8')).toJS() as {
  jobs: Record<string, Job>;
};
const quick = workflow.jobs['bench-quick']!;
const shardJob = workflow.jobs['bench-shard']!;
const mergeJob = workflow.jobs['bench-merge']!;
const uses = (job: Job, action: string) => job.steps.find((step) => step.uses?.startsWith(`${action}@`) === true);
const runs = (job: Job, pattern: RegExp) => job.steps.find((step) => step.run !== undefined && pattern.test(step.run));
const shards = shardJob.strategy?.matrix?.shard ?? [];

describe('benchmarks.yml: the sharded run', () => {
  it('is a matrix of shards 1..n that do not cancel each other, each with a time bound', () => {
    expect(shards.length).toBeGreaterThan(1);
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, index) => index + 1));
    expect(shardJob.strategy?.['fail-fast']).toBe(false);
    expect(shardJob['timeout-minutes']).toBeGreaterThan(0);
    expect(mergeJob['timeout-minutes']).toBeGreaterThan(0);
  });

  it('runs each shard against the same broker and proxy services as the quick run, with an environment the harness accepts', () => {
    expect(Object.fromEntries(Object.entries(shardJob.services ?? {}).map(([name, service]) => [name, service.image]))).toEqual(
      Object.fromEntries(Object.entries(quick.services ?? {}).map(([name, service]) => [name, service.image])),
    );
    const config = resolveConfig(shardJob.env ?? {});
    expect(config.embeddedProxy).toBe('never');
    expect(config.proxyUpstream).toEqual({ host: 'rabbitmq', port: 5672 });
  });

  it('passes its own shard of the matrix to bench run, as i/n with n the matrix size', () => {
    const step = runs(shardJob, /npm run bench\b.*--shard/);
    const option = /--shard (\$\{\{ matrix\.shard \}\}\/\d+)/.exec(step?.run ?? '')?.[1];
    expect(option).toBe(`\${{ matrix.shard }}/${shards.length}`);
    for (const shard of shards)
      expect(resolveShardOption(option!.replace('${{ matrix.shard }}', String(shard)))).toEqual({ index: shard, count: shards.length });
  });

  it("uploads each shard's raw-results folder, hidden shard manifest included, also when the shard failed", () => {
    const upload = uses(shardJob, 'actions/upload-artifact');
    expect(upload?.if).toBe('always()');
    expect(upload?.with?.['include-hidden-files']).toBe(true);
    expect(upload?.with?.['if-no-files-found']).toBe('error');
    expect(String(upload?.with?.name)).toContain('${{ matrix.shard }}');
    const uploaded = path.normalize(String(upload?.with?.path));
    expect(uploaded).toBe(path.normalize(`${shardJob.env?.BENCH_RAW_DIR}/`));
    expect(SHARD_MANIFEST_FILE_NAME.startsWith('.')).toBe(true);
  });

  it("merges after every shard, even a failed one: downloads every shard's artifact and runs bench merge on them", () => {
    expect(mergeJob.needs).toBe('bench-shard');
    expect(mergeJob.if).toMatch(/always\(\)/);
    const download = uses(mergeJob, 'actions/download-artifact');
    const uploadName = String(uses(shardJob, 'actions/upload-artifact')?.with?.name);
    const pattern = String(download?.with?.pattern);
    expect(uploadName.replace('${{ matrix.shard }}', '*')).toBe(pattern);
    const merge = runs(mergeJob, /npm run bench:merge/);
    expect(merge?.run).toContain(`${download?.with?.path}/${pattern}`);
    const report = uses(mergeJob, 'actions/upload-artifact');
    expect(report?.if).toBe('always()');
    expect(String(report?.with?.path)).toContain('reports/benchmarks/LATEST_REPORT.md');
  });

  it('runs npm scripts that exist, in every job', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps) {
        for (const [, script] of (step.run ?? '').matchAll(/npm run ([\w:-]+)/g))
          expect({ script, defined: script! in scripts }).toEqual({ script, defined: true });
      }
    }
  });
});
