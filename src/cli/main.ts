/**
 * The harness's command line: `node bin/bench.js <command>`, wrapped by the npm scripts
 * (`npm run bench`, `bench:quick`, `bench:compare`, `bench:report`, `proxy`, `env`).
 */
import { Command, CommanderError } from 'commander';
import { BenchError, describeError, MarkerExpressionError } from '../errors';
import { redactText } from '../redact';
import type * as AaCommand from './aaCommand';
import type * as AbCommand from './abCommand';
import type * as CheckAdapterCommand from './checkAdapterCommand';
import type * as ClusterCommand from './clusterCommand';
import type * as EnvCommand from './envCommand';
import type * as FaultsCommand from './faultsCommand';
import type * as LoadCommand from './loadCommand';
import type * as LoadMergeCommand from './loadMergeCommand';
import type * as HerdCommand from './herdCommand';
import type * as MergeCommand from './mergeCommand';
import type * as ProxyCommand from './proxyCommand';
import type * as ReportCommand from './reportCommand';
import type * as RunCommand from './runCommand';
import type * as VerifyCommand from './verifyCommand';

type Registrar = (program: Command) => void;

/**
 * Each command's module is loaded only when that command runs (or for help): the proxy's own
 * process then carries none of the report and chart code, which keeps its memory small.
 */
const COMMANDS: Readonly<Record<string, () => Registrar>> = {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily on purpose (see above) */
  env: () => (require('./envCommand') as typeof EnvCommand).registerEnvCommand,
  run: () => (require('./runCommand') as typeof RunCommand).registerRunCommand,
  faults: () => (require('./faultsCommand') as typeof FaultsCommand).registerFaultsCommand,
  report: () => (require('./reportCommand') as typeof ReportCommand).registerReportCommand,
  merge: () => (require('./mergeCommand') as typeof MergeCommand).registerMergeCommand,
  proxy: () => (require('./proxyCommand') as typeof ProxyCommand).registerProxyCommand,
  aa: () => (require('./aaCommand') as typeof AaCommand).registerAaCommand,
  ab: () => (require('./abCommand') as typeof AbCommand).registerAbCommand,
  load: () => (require('./loadCommand') as typeof LoadCommand).registerLoadCommand,
  'load-merge': () => (require('./loadMergeCommand') as typeof LoadMergeCommand).registerLoadMergeCommand,
  herd: () => (require('./herdCommand') as typeof HerdCommand).registerHerdCommand,
  verify: () => (require('./verifyCommand') as typeof VerifyCommand).registerVerifyCommand,
  cluster: () => (require('./clusterCommand') as typeof ClusterCommand).registerClusterCommand,
  'check-adapter': () => (require('./checkAdapterCommand') as typeof CheckAdapterCommand).registerCheckAdapterCommand,
  /* eslint-enable @typescript-eslint/no-require-imports */
};

/** The program with every command, or only `commandName`'s when it names one. */
export function buildProgram(commandName?: string): Command {
  const program = new Command('bench')
    .description('Benchmark and recovery-latency harness for AMQP clients')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  const only = commandName !== undefined && commandName in COMMANDS ? [commandName] : Object.keys(COMMANDS);
  for (const name of only) COMMANDS[name]!()(program);
  return program;
}

/** Runs the CLI; resolves with the process exit code (0 ok, 1 failed run, 2 bad input). */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram(argv[2]);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    // One clear line (and, for an expression, a caret under the column), never a stack trace, never a password.
    const pointer = error instanceof MarkerExpressionError ? `\n${error.pointer}` : '';
    process.stderr.write(`bench: ${redactText(describeError(error))}${pointer}\n`);
    return error instanceof BenchError && ['CONFIG_INVALID', 'MARKER_EXPRESSION'].includes(error.code) ? 2 : 1;
  }
}
