/**
 * The CI matrix engine of a fleet in the project's own workflow: a plan job picks one start time
 * and run id, a matrix runs one agent per job (its index from the matrix, the count from the
 * matrix's size), each uploads its result file, and a merge job merges them with bench
 * load-merge, also after a failed agent. The agent's command line is read by the harness's own
 * flag resolution, as `bench load` would read it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { parseDocument } from 'yaml';
import { PROJECT_ROOT } from '../../src/config';
import { registerLoadCommand } from '../../src/cli/loadCommand';
import { resolveLoadOptions, type LoadFlags } from '../../src/cli/loadFlags';

interface Step {
  readonly id?: string;
  readonly run?: string;
  readonly uses?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
}
interface Job {
  readonly needs?: string | readonly string[];
  readonly if?: string;
  readonly outputs?: Readonly<Record<string, string>>;
  readonly strategy?: { readonly 'fail-fast'?: boolean; readonly matrix?: { readonly agent?: readonly number[] } };
  readonly services?: Readonly<Record<string, unknown>>;
  readonly steps: readonly Step[];
}

const workflow = parseDocument(fs.readFileSync(path.join(PROJECT_ROOT, '.github/workflows/benchmarks.yml'), 'utf8')).toJS() as {
  jobs: Record<string, Job>;
};
const plan = workflow.jobs['fleet-plan']!;
const agent = workflow.jobs['fleet-agent']!;
const merge = workflow.jobs['fleet-merge']!;
const runs = (job: Job, pattern: RegExp) => job.steps.find((step) => step.run !== undefined && pattern.test(step.run));
const uses = (job: Job, action: string) => job.steps.find((step) => step.uses?.startsWith(`${action}@`) === true);
const agents = agent.strategy?.matrix?.agent ?? [];

/** The agent's `bench load` arguments, with the workflow's expressions given values. */
function agentArgs(index: number): string[] {
  const line = runs(agent, /npm run bench:load /)!
    .run!.replace(/\s+/g, ' ')
    .trim();
  return line
    .replaceAll('${{ matrix.agent }}', String(index))
    .replace('${{ needs.fleet-plan.outputs.run-id }}', 'ci-1-1')
    .replace('${{ needs.fleet-plan.outputs.start-at }}', '2026-11-27T10:04:00Z')
    .split(' ')
    .slice(line.split(' ').indexOf('--') + 1);
}

describe('the fleet jobs of the workflow', () => {
  test('a matrix of agents 0..n-1 that do not cancel each other, each after the plan, each with a broker of its own', () => {
    expect(agents).toEqual(agents.map((_, index) => index));
    expect(agents.length).toBeGreaterThanOrEqual(2);
    expect(agent.strategy?.['fail-fast']).toBe(false);
    expect(agent.needs).toBe('fleet-plan');
    expect(Object.keys(agent.services ?? {})).toEqual(['rabbitmq']);
  });

  test('the plan gives every agent one start time and one run id', () => {
    const step = plan.steps.find((each) => each.id === 'plan')!;
    expect(step.run).toMatch(/start-at=\$\(date -u -d '\+\d+ minutes' \+%Y-%m-%dT%H:%M:%SZ\)" >> "\$GITHUB_OUTPUT"/);
    expect(step.run).toMatch(/run-id=ci-\$\{\{ github\.run_id \}\}/);
    expect(plan.outputs).toEqual({ 'start-at': '${{ steps.plan.outputs.start-at }}', 'run-id': '${{ steps.plan.outputs.run-id }}' });
  });

  test("each agent's command is one the harness accepts: its index, the matrix's size, the plan's start and run id", () => {
    const program = new Command('bench').exitOverride();
    registerLoadCommand(program);
    const load = program.commands.find((command) => command.name() === 'load')!;
    for (const index of agents) {
      load.parseOptions(agentArgs(index));
      const options = resolveLoadOptions(undefined, load.opts<LoadFlags>());
      expect(options.fleet).toMatchObject({
        kind: 'agent',
        index,
        agents: agents.length,
        runId: 'ci-1-1',
        barrier: { mode: 'start_at', startAtUnixMs: Date.parse('2026-11-27T10:04:00Z') },
      });
      expect(agentArgs(index)).toEqual(expect.arrayContaining(['-o', `fleet/agent-${index}`]));
    }
  });

  test("uploads each agent's folder, and merges them all after every agent, even a failed one", () => {
    const upload = uses(agent, 'actions/upload-artifact')!;
    expect(upload.if).toBe('always()');
    expect(upload.with).toMatchObject({ name: 'fleet-agent-${{ matrix.agent }}', path: 'fleet/' });
    expect(merge.needs).toBe('fleet-agent');
    expect(merge.if).toBe('always()');
    const download = uses(merge, 'actions/download-artifact')!;
    expect(download.with).toMatchObject({ pattern: 'fleet-agent-*' });
    expect(runs(merge, /npm run bench:load-merge -- /)?.run).toContain(String(download.with!.path));
  });
});
