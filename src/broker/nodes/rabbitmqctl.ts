/**
 * RabbitMQ's CLI tools aimed at one node of the benchmark cluster, always with `-n <node>`
 * and the cluster's environment (its HOME and cookie), bounded in time. Only nodes of the
 * layout can be named: there is no way to hand this module `rabbit@localhost`.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { BenchError } from '../../errors';
import { nodeEnvironment, type ClusterLayout, type ClusterNode } from './layout';

export type CliTool = 'rabbitmqctl' | 'rabbitmq-queues' | 'rabbitmq-diagnostics';

export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
}

/** A CLI call failed or did not finish; the message names the node, the command and the tool's own words. */
export class ClusterCommandError extends BenchError {
  constructor(message: string) {
    super('BROKER_UNREACHABLE', message);
  }
}

/**
 * Runs `<tool> -n <node> <args...>` within `boundMs` (the CLI starts an Erlang VM of its own:
 * seconds on a busy machine, so bounds are generous).
 * @throws ClusterCommandError with the tool's last output line
 */
export function runCli(
  layout: ClusterLayout,
  node: ClusterNode,
  tool: CliTool,
  args: readonly string[],
  boundMs: number,
): Promise<CliResult> {
  if (!layout.nodes.some((known) => known.name === node.name)) {
    throw new ClusterCommandError(`refusing to run ${tool} against ${node.name}: not a node of the benchmark cluster`);
  }
  const command = [tool, '-q', '-n', node.name, ...args];
  return new Promise((resolve, reject) => {
    execFile(
      path.join(layout.rabbitmqBinDir, tool),
      command.slice(1),
      { env: nodeEnvironment(layout, node, process.env), timeout: boundMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ stdout, stderr });
          return;
        }
        const timedOut = (error as { killed?: boolean }).killed === true;
        const said = lastLine(stderr) || lastLine(stdout) || error.message;
        reject(new ClusterCommandError(`\`${command.join(' ')}\` ${timedOut ? `did not finish within ${boundMs} ms` : 'failed'}: ${said}`));
      },
    );
  });
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^(?:DIAGNOSTICS|=+)$/.test(line))
      .slice(0, 3)
      .join(' ') ?? ''
  );
}
