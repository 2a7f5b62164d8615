/**
 * The harness's command line: `node bin/bench.js <command>`, wrapped by the npm scripts
 * (`npm run bench`, `bench:quick`, `bench:compare`, `bench:report`, `proxy`, `env`).
 */
import { Command, CommanderError } from 'commander';
import { BenchError, describeError } from '../errors';
import { redactText } from '../redact';
import { registerEnvCommand } from './envCommand';
import { registerReportCommand } from './reportCommand';
import { registerRunCommand } from './runCommand';
import { registerProxyCommand } from './proxyCommand';

export function buildProgram(): Command {
  const program = new Command('bench')
    .description('Benchmark and recovery-latency harness for AMQP clients')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  registerEnvCommand(program);
  registerRunCommand(program);
  registerReportCommand(program);
  registerProxyCommand(program);
  return program;
}

/** Runs the CLI; resolves with the process exit code (0 ok, 1 failed run, 2 bad input). */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    // One clear line, never a stack trace, never a password.
    process.stderr.write(`bench: ${redactText(describeError(error))}\n`);
    return error instanceof BenchError && error.code === 'CONFIG_INVALID' ? 2 : 1;
  }
}
