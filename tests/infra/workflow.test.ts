/**
 * .github/workflows/benchmarks.yml cannot run here, so it is checked as GitHub would read it:
 * against GitHub's own workflow schema (the one its workflow parser uses), then for what the
 * job must do (triggers, services, steps, the proxy's upstream, the artifact), and against
 * the harness itself (the env it sets is valid configuration, the npm script exists).
 */
import fs from 'node:fs';
import path from 'node:path';
import { editedCopy } from '../support/documents';
import { parseDocument } from 'yaml';
import { PROJECT_ROOT, proxiedAmqpUrl, resolveConfig } from '../../src/config';
import { compileWorkflowValidator, type TemplateSchema } from './githubWorkflowSchema';

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
}

interface ServiceContainer {
  readonly image: string;
  readonly ports?: readonly string[];
  readonly options?: string;
}

interface Job {
  readonly 'runs-on': string;
  readonly 'timeout-minutes'?: number;
  readonly services?: Readonly<Record<string, ServiceContainer>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly steps: readonly Step[];
}

interface Workflow {
  readonly on: { readonly push?: { readonly branches?: readonly string[] } | null; readonly pull_request?: unknown };
  readonly jobs: Readonly<Record<string, Job>>;
}

const WORKFLOW_PATH = path.join(PROJECT_ROOT, '.github/workflows/benchmarks.yml');
const template = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'schemas/vendor/github-workflow-v1.0.json'), 'utf8')) as TemplateSchema;
const validateWorkflow = compileWorkflowValidator(template);

function loadWorkflow(file: string): unknown {
  // YAML 1.2, as GitHub reads it: `on` stays a string key (YAML 1.1 would make it `true`).
  const document = parseDocument(fs.readFileSync(file, 'utf8'), { uniqueKeys: true, prettyErrors: true });
  const problems = [...document.errors, ...document.warnings].map((problem) => problem.message);
  if (problems.length > 0) throw new Error(`${path.basename(file)} does not parse cleanly:\n${problems.join('\n')}`);
  return document.toJS();
}

const workflow = loadWorkflow(WORKFLOW_PATH) as Workflow;
const job = workflow.jobs['bench-quick']!;
const stepIndex = (predicate: (step: Step) => boolean): number => job.steps.findIndex(predicate);
const runStep = (pattern: RegExp): Step | undefined => job.steps.find((step) => step.run !== undefined && pattern.test(step.run));

/** Docker's `--health-cmd "..."` out of a service's options string. */
const healthCommand = (service: ServiceContainer | undefined): string | undefined =>
  /--health-cmd\s+"([^"]+)"/.exec(service?.options ?? '')?.[1];
const publishedPorts = (service: ServiceContainer | undefined): number[] =>
  (service?.ports ?? []).map((port) => Number(String(port).split(':')[0]));

describe('benchmarks.yml: schema', () => {
  it("validates against GitHub's workflow schema", () => {
    expect(validateWorkflow(workflow).errors).toEqual([]);
  });

  // The schema check is only worth something if it can fail: mistakes GitHub would reject.
  it.each([
    ['a job without runs-on', ['jobs', 0, 'runs-on'], undefined],
    ['a misspelt step key', ['jobs', 0, 'steps', 0, 'usess'], 'actions/checkout@v4'],
    ['an unknown event', ['on'], { pull_requests: null }],
    ['a misspelt event filter', ['on', 'push'], { branch: ['master'] }],
    ['a timeout that is not a number', ['jobs', 0, 'timeout-minutes'], 'thirty'],
  ] as const)('rejects %s', (_label, keys, value) => {
    const broken = editedCopy(workflow, keys, value);
    const result = validateWorkflow(broken);
    expect(result.valid).toBe(false);
    expect(result.errors.length).toBeGreaterThan(0);
  });
});

describe('benchmarks.yml: the job', () => {
  it('runs on pushes to master and on pull requests', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(workflow.on.push?.branches).toEqual(['master']);
  });

  it('has the quick job on a Linux runner, with a time bound (besides the sharded run)', () => {
    expect(Object.keys(workflow.jobs).sort()).toEqual([
      'bench-merge',
      'bench-quick',
      'bench-shard',
      'fleet-agent',
      'fleet-merge',
      'fleet-plan',
    ]);
    expect(job['runs-on']).toMatch(/^ubuntu-/);
    expect(job['timeout-minutes']).toBeGreaterThan(0);
  });

  it('stays on the real Toxiproxy image and never falls back to the embedded proxy', () => {
    expect(job.services?.toxiproxy?.image).toMatch(/^ghcr\.io\/shopify\/toxiproxy(:|$)/);
    expect(job.env?.BENCH_EMBEDDED_PROXY).toBe('never');
  });

  it('runs the broker and the proxy as health-checked service containers', () => {
    const broker = job.services?.rabbitmq;
    const proxy = job.services?.toxiproxy;
    expect(broker?.image).toBe('rabbitmq:3-management');
    expect(publishedPorts(broker)).toContain(5672);
    expect(healthCommand(broker)).toBe('rabbitmq-diagnostics -q ping');
    expect(proxy?.image).toBe('ghcr.io/shopify/toxiproxy');
    expect(publishedPorts(proxy)).toEqual(expect.arrayContaining([8474, 25672]));
    expect(healthCommand(proxy)).toBe('/toxiproxy-cli list');
  });

  it('takes the steps in order: checkout, Node 20 with npm cache, npm ci (both groups), npm test, proxy, quick run (pushes), paired gate (pull requests), verification (pushes), artifact', () => {
    const checkout = stepIndex((step) => step.uses?.startsWith('actions/checkout@') === true);
    const setupNode = stepIndex((step) => step.uses?.startsWith('actions/setup-node@') === true);
    const install = stepIndex((step) => step.run?.trim() === 'npm ci');
    const installDocs = stepIndex((step) => step.run?.trim() === 'npm ci --prefix docs');
    const test = stepIndex((step) => step.run?.trim() === 'npm test');
    const createProxy = stepIndex((step) => /\bcurl\b[\s\S]*-X POST/.test(step.run ?? '') && (step.run ?? '').includes('/proxies'));
    const quickRun = stepIndex((step) => step.run?.trim() === 'npm run bench:quick');
    const pairedGate = stepIndex((step) => step.run?.trim().startsWith('npm run bench:ab') === true);
    const verify = stepIndex((step) => step.run?.trim().startsWith('npm run bench:verify') === true);
    const upload = stepIndex((step) => step.uses?.startsWith('actions/upload-artifact@') === true);
    expect([checkout, setupNode, install, installDocs, test, createProxy, quickRun, pairedGate, verify, upload]).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    // Pushes record the build's figures; pull requests are gated by the paired run (tests/infra/workflowAb.test.ts).
    expect(job.steps[quickRun]?.if).toBe("github.event_name == 'push'");
    expect(job.steps[pairedGate]?.if).toBe("github.event_name == 'pull_request'");
    // The proxy is in its own container, outside the runner's loopback: no capture there.
    expect(job.steps[verify]?.run).toContain('--no-capture');
    expect(job.steps[verify]?.if).toBe("github.event_name == 'push'");
    expect(job.steps[setupNode]?.with).toEqual({ 'node-version': 20, cache: 'npm' });
  });

  it('runs the tests as .ci/run does (npm test), with the management API published for their connection checks', () => {
    const ciRun = fs.readFileSync(path.join(PROJECT_ROOT, '.ci/run'), 'utf8');
    expect(ciRun).toMatch(/^npm test$/m);
    expect(ciRun).toMatch(/^npm ci --prefix docs/m);
    expect(publishedPorts(job.services?.rabbitmq)).toContain(15672);
  });

  it("creates the proxy entry with the broker's service name as upstream, not localhost", () => {
    const step = runStep(/\/proxies/)!;
    const body = /-d\s+'([^']+)'/.exec(step.run!)?.[1];
    expect(body).toBeDefined();
    const entry = JSON.parse(body!) as { name: string; listen: string; upstream: string };
    expect(step.run).toMatch(/-X POST http:\/\/(?:127\.0\.0\.1|localhost):8474\/proxies/);
    // The toxiproxy container reaches the broker by its service key on the job network.
    const [upstreamHost, upstreamPort] = entry.upstream.split(':');
    expect(Object.keys(job.services ?? {})).toContain(upstreamHost);
    expect(upstreamHost).toBe('rabbitmq');
    expect(Number(upstreamPort)).toBe(5672);
    expect(entry.listen).toBe('0.0.0.0:25672');
    expect(entry.name).toBe(job.env?.BENCH_PROXY_NAME);
  });

  it('uploads the report and its charts as benchmark-report, also when the run failed', () => {
    const upload = job.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@') === true)!;
    expect(upload.if).toBe('always()');
    expect(upload.with?.name).toBe('benchmark-report');
    const paths = String(upload.with?.path)
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    expect(paths).toEqual(expect.arrayContaining(['reports/benchmarks/LATEST_REPORT.md', 'reports/benchmarks/*.svg']));
  });
});

describe('benchmarks.yml: agrees with the harness', () => {
  it('sets an environment the harness accepts, aimed at the service containers', () => {
    const config = resolveConfig(job.env ?? {});
    expect(config.embeddedProxy).toBe('never');
    expect(new URL(config.amqpUrl).port).toBe('5672');
    expect(new URL(config.proxyApiUrl).port).toBe('8474');
    expect(config.proxyUpstream).toEqual({ host: 'rabbitmq', port: 5672 });
    // The benchmarks' clients reach the proxied broker through the port the runner publishes.
    expect(new URL(proxiedAmqpUrl(config)).host).toBe('127.0.0.1:25672');
  });

  it('sets only variables the harness reads', () => {
    const configSource = fs.readFileSync(path.join(PROJECT_ROOT, 'src/config.ts'), 'utf8');
    for (const name of Object.keys(job.env ?? {}))
      expect({ name, known: configSource.includes(`'${name}'`) }).toEqual({ name, known: true });
  });

  it('runs npm scripts that exist', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    for (const step of job.steps) {
      for (const [, script] of (step.run ?? '').matchAll(/npm run ([\w:-]+)/g))
        expect({ script, defined: script! in scripts }).toEqual({ script, defined: true });
    }
  });
});
