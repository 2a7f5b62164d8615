/**
 * The pull-request gate of both workflows (the project's own, and the one a client copies from
 * examples/reconnect-wrapper) is a paired run: `bench ab` of the target branch's commit against
 * the pull request as checked out. Checked as the harness reads it: the command line goes through
 * `bench ab`'s own flags and option resolution, the checkout keeps the history the baseline is
 * checked out from, and the artifact keeps the paired report where the command writes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { parseDocument } from 'yaml';
import { getConfig, PROJECT_ROOT } from '../../src/config';
import { AB_COMPARISON_FILE_NAME, AB_REPORT_FILE_NAME, registerAbCommand } from '../../src/cli/abCommand';
import { resolveAbOptions, type AbCommandInput, type AbOptions } from '../../src/cli/abOptions';
import { compileWorkflowValidator, type TemplateSchema } from './githubWorkflowSchema';

interface Step {
  readonly name?: string;
  readonly run?: string;
  readonly uses?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
}
interface Workflow {
  readonly on: Readonly<Record<string, unknown>>;
  readonly jobs: Readonly<Record<string, { readonly steps: readonly Step[] }>>;
}

const BASE_SHA_EXPRESSION = '${{ github.event.pull_request.base.sha }}';
const SOME_SHA = '0123456789abcdef0123456789abcdef01234567';
const EXAMPLE_DIR = path.join(PROJECT_ROOT, 'examples', 'reconnect-wrapper');

const GATES = [
  { name: 'benchmarks.yml', file: path.join(PROJECT_ROOT, '.github/workflows/benchmarks.yml'), job: 'bench-quick', cwd: PROJECT_ROOT },
  {
    name: 'the example (amqp-bench.yml)',
    file: path.join(EXAMPLE_DIR, '.github/workflows/amqp-bench.yml'),
    job: 'bench',
    cwd: EXAMPLE_DIR,
  },
] as const;

const template = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'schemas/vendor/github-workflow-v1.0.json'), 'utf8')) as TemplateSchema;
const validateWorkflow = compileWorkflowValidator(template);

function load(file: string): Workflow {
  // YAML 1.2, as GitHub reads it (`on` stays a string key).
  return parseDocument(fs.readFileSync(file, 'utf8'), { uniqueKeys: true }).toJS() as Workflow;
}

/** The gate's `bench ab` step: through npm's script (`npm run bench:ab --`) or the package's bin (`npx amqp-bench ab`). */
function gateStep(steps: readonly Step[]): Step | undefined {
  return steps.find((step) => /(npm run bench:ab -- |npx amqp-bench ab )/.test(step.run ?? ''));
}

/** The step's `bench ab` arguments, the target branch's commit given a value, read by the command's own flags. */
function readGate(step: Step, cwd: string): { options: AbOptions; operands: string[] } {
  const line = step.run!.replace(/\s+/g, ' ').trim().replace(BASE_SHA_EXPRESSION, SOME_SHA);
  const words = line.split(' ');
  const args = words.slice(words.indexOf(words.includes('--') ? '--' : 'ab') + 1);
  const program = new Command('bench').exitOverride();
  registerAbCommand(program);
  const ab = program.commands.find((command) => command.name() === 'ab')!;
  const { operands, unknown } = ab.parseOptions(args);
  expect(unknown).toEqual([]);
  expect(operands).toHaveLength(2);
  return { options: resolveAbOptions(operands[0]!, operands[1]!, ab.opts<AbCommandInput>(), getConfig(), cwd), operands };
}

describe.each(GATES)('$name: the pull-request gate is a paired run', ({ file, job, cwd }) => {
  const workflow = load(file);
  const steps = workflow.jobs[job]!.steps;

  it("validates against GitHub's workflow schema and runs on pull requests", () => {
    expect(validateWorkflow(workflow).errors).toEqual([]);
    expect(Object.keys(workflow.on)).toContain('pull_request');
  });

  it("checks out the whole history (bench ab checks the target branch's commit out of it)", () => {
    const checkout = steps.find((step) => step.uses?.startsWith('actions/checkout@') === true)!;
    expect(checkout.with?.['fetch-depth']).toBe(0);
  });

  it("compares the target branch's commit (A) with the pull request as checked out (B), gated at a threshold", () => {
    const step = gateStep(steps);
    expect(step).toBeDefined();
    expect(step!.if === undefined || step!.if === "github.event_name == 'pull_request'").toBe(true);
    const { options, operands } = readGate(step!, cwd);
    expect(operands).toEqual([SOME_SHA, '.']);
    expect(options).toMatchObject({ mode: 'refs', baseline: SOME_SHA, candidate: '.' });
    // The quick selection, unless the step chose another.
    expect(options.markerExpression).toBe('benchmark and not slow and not stress and not witness');
    expect(options.thresholdPercent).toBeGreaterThan(0);
  });

  it('keeps the paired report and its comparison as an artifact, also when the gate failed', () => {
    const { options } = readGate(gateStep(steps)!, cwd);
    const upload = steps.find((step) => step.uses?.startsWith('actions/upload-artifact@') === true)!;
    expect(upload.if).toBe('always()');
    const paths = String(upload.with?.path)
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const output = path.relative(cwd, options.outputDir);
    expect(paths).toEqual(expect.arrayContaining([path.join(output, AB_REPORT_FILE_NAME), path.join(output, AB_COMPARISON_FILE_NAME)]));
  });
});

describe('the example workflow', () => {
  it('names the adapter the project measures, the one its contract step checks', () => {
    const steps = load(GATES[1].file).jobs.bench!.steps;
    const { options } = readGate(gateStep(steps)!, EXAMPLE_DIR);
    expect(options.clients).toBe('./bench/adapter.js');
    expect(fs.existsSync(path.join(EXAMPLE_DIR, options.clients!))).toBe(true);
    expect(steps.some((step) => (step.run ?? '').includes('npx amqp-bench check-adapter ./bench/adapter.js'))).toBe(true);
  });
});
