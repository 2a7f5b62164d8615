/**
 * `bench ab`'s selection flags, as `bench run` takes them: `--quick` names the quick selection
 * (the default of a paired run) and an explicit -m wins over it.
 */
import { Command } from 'commander';
import { getConfig } from '../../src/config';
import { registerAbCommand } from '../../src/cli/abCommand';
import { resolveAbOptions, type AbCommandInput } from '../../src/cli/abOptions';
import { QUICK_MARKERS } from '../../src/cli/runOptions';

function parseAb(args: readonly string[]) {
  const program = new Command('bench').exitOverride();
  registerAbCommand(program);
  const ab = program.commands.find((command) => command.name() === 'ab')!;
  const { operands, unknown } = ab.parseOptions([...args]);
  return { unknown, options: resolveAbOptions(operands[0]!, operands[1]!, ab.opts<AbCommandInput>(), getConfig()) };
}

describe('bench ab selection flags', () => {
  it('takes --quick as bench run does: the quick selection', () => {
    const { unknown, options } = parseAb(['main', 'HEAD', '--quick']);
    expect(unknown).toEqual([]);
    expect(options.markerExpression).toBe(QUICK_MARKERS);
  }, 10_000);

  it('lets an explicit -m win over --quick', () => {
    const { unknown, options } = parseAb(['main', 'HEAD', '--quick', '-m', 'benchmark and slow']);
    expect(unknown).toEqual([]);
    expect(options.markerExpression).toBe('benchmark and slow');
  }, 10_000);
});
