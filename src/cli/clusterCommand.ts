/**
 * `bench cluster up | down | status` (`npm run cluster:up`, `cluster:down`, `cluster:status`):
 * the local 3-node RabbitMQ cluster the failover benchmarks run against (src/cluster/).
 */
import type { Command } from 'commander';
import { clusterDown, clusterStatus, clusterUp } from '../broker/nodes/lifecycle';
import { resolveClusterSettings } from '../broker/nodes/settings';

export function registerClusterCommand(program: Command): void {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const cluster = program
    .command('cluster')
    .description(
      'a local 3-node RabbitMQ cluster (bench-a/b/c@localhost on 5681-5683) beside the broker on 5672, for the failover benchmarks',
    );
  cluster
    .command('up')
    .description('start the three nodes and join them into one cluster (stops what it started if that fails)')
    .action(async () => {
      await clusterUp(resolveClusterSettings(), log);
    });
  cluster
    .command('down')
    .description('stop every node (killing what does not stop in time) and remove their data; logs are kept')
    .action(async () => {
      await clusterDown(resolveClusterSettings(), log);
    });
  cluster
    .command('status')
    .description('show each node (pid, AMQP port) and the running members; exit code 1 when the cluster is not up')
    .action(async () => {
      process.exitCode = (await clusterStatus(resolveClusterSettings(), log)) ? 0 : 1;
    });
}
