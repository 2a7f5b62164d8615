/**
 * `bench herd`: a reconnect herd at fleet scale on this machine — N connections of each client
 * configuration spread over agent processes, dropped at once, watched from the broker side and
 * the clients' (src/fleet/herd/). One herd per configuration, one after the other; herd.json,
 * report.md and its chart in the output folder. `--agent` is the agents' own entry point (the
 * coordinator starts them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { getConfig, workDir } from '../config';
import { ConfigError } from '../errors';
import type { ClientSpec } from '../client/api';
import { parseClientSelection } from '../client/registry';
import { parseDurationMs } from '../faults/kinds/arguments';
import { runHerdAgent } from '../fleet/herd/agent';
import { runHerd, type HerdRun } from '../fleet/herd/coordinator';
import { HERD_BROKER_CHOICES, type HerdBrokerChoice } from '../fleet/herd/room';
import type { HerdDrop } from '../fleet/herd/target';
import { newRunId } from '../fleet/protocol';
import { writeHerdReport } from '../report/herdReport';
import { outputFolder } from './loadOutput';

interface HerdFlags {
  readonly connections: string;
  readonly agents: string;
  readonly clients: string;
  readonly client?: string;
  readonly drop: string;
  readonly broker: string;
  readonly down: string;
  readonly bound: string;
  readonly burstShare: string;
  readonly barrierTimeout: string;
  readonly output?: string;
  readonly agent?: string;
  readonly runId?: string;
}

export function registerHerdCommand(program: Command): void {
  program
    .command('herd')
    .description(
      'a reconnect herd at fleet scale: N connections spread over agent processes, dropped at once; attempts per 100 ms at the broker side and time until every connection consumes again, per client configuration',
    )
    .option('--connections <n>', 'connections of the herd (each a client connection with a consumer on a queue of its own)', '1000')
    .option('--agents <n>', 'agent processes the connections are spread over', '10')
    .option(
      '--clients <list>',
      'client configurations, one herd each (BENCH_CLIENTS form)',
      'amqp-connection-manager:defaults,amqplib-recovery:defaults',
    )
    .option(
      '--drop <how>',
      "broker_close (the broker closes the harness's own connections by name) | node_restart (a node the harness starts for it stops and starts again)",
      'broker_close',
    )
    .option(
      '--broker <where>',
      'auto (the shared broker while it has sockets for the herd, else a node the harness starts) | shared (refuses a herd it cannot hold) | node (always a node the harness starts)',
      'auto',
    )
    .option('--down <time>', 'with node_restart: how long the node stays down', '3s')
    .option('--bound <time>', 'from the drop: how long every connection has to consume again', '90s')
    .option(
      '--burst-share <percent>',
      'a finding when more than this share of the connections attempt within one 100 ms (attempts no jitter spread)',
      '50%',
    )
    .option('--barrier-timeout <time>', 'how long to wait for every agent to connect its share', '300s')
    .option('-o, --output <dir>', 'folder for herd.json, report.md and herd.svg (default <reports>/herd/herd_<time>)')
    .addOption(new Option('--agent <index>', "an agent's own entry point (started by the coordinator)").hideHelp())
    .addOption(new Option('--client <name:profile>').hideHelp())
    .addOption(new Option('--run-id <id>').hideHelp())
    .addHelpText(
      'after',
      `
Which broker: a node accepts connections only up to its sockets limit (\`rabbitmqctl status\`,
"Sockets", from its open-files limit); past it they hang in their handshake. The shared broker's
service starts it with a soft limit of 1024: 832 sockets. So before each herd the command reads
the limit and the connections already open. With broker_close (--broker auto) the herd stays on
the shared broker while its N connections, the agents' control connections and a margin (10 % of
N, at least 50) fit, and runs on a node the harness starts when they do not (its open-files limit
is this process's hard limit, e.g. 20000: 17910 sockets), closed by name the same way. A
node_restart always has such a node. No broker's limits are changed: --broker shared with a herd
too large, or a node without room, is refused with what to do.

Example (fixed delay vs jittered backoff; 1,000 connections run on a node the harness starts):
  bench herd --connections 1000 --agents 10 --clients amqp-connection-manager:defaults,rabbitmq-client:defaults
  bench herd --connections 200 --agents 4 --drop node_restart --down 3s`,
    )
    .action(async (flags: HerdFlags) => {
      process.exitCode = await herdAction(flags);
    });
}

async function herdAction(flags: HerdFlags): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let resolved: ReturnType<typeof resolveHerdFlags>;
  try {
    resolved = resolveHerdFlags(flags);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`bench herd: ${error.message}\n`);
    return 2;
  }
  const config = getConfig();
  if (flags.agent !== undefined) {
    const url = process.env.BENCH_HERD_URL;
    if (!url) throw new ConfigError('BENCH_HERD_URL', "the agent's proxy entry (set by the coordinator)", 'unset');
    const report = await runHerdAgent({
      runId: flags.runId!,
      index: Number(flags.agent),
      count: resolved.agents,
      connections: resolved.connections,
      client: resolved.clients[0]!,
      url,
      controlUrl: config.amqpUrl,
      barrierBoundMs: resolved.barrierBoundMs,
      runBoundMs: resolved.boundMs + 60_000,
      log,
    });
    return report.error === null ? 0 : 1;
  }
  const startedAt = new Date();
  const outDir = outputFolder(flags.output, workDir(), config.reportsDir, 'herd', startedAt, 'herd');
  fs.mkdirSync(outDir, { recursive: true });
  const runs: HerdRun[] = [];
  // A signal stops the waiting; each herd still takes down what it set up (agents, queues, node).
  const controller = new AbortController();
  const onSignal = () => {
    log('bench herd: interrupted; ending the agents, deleting the queues');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  for (const client of resolved.clients) {
    if (controller.signal.aborted) break;
    const runId = newRunId();
    log(
      `bench herd: ${resolved.connections} connections of ${client.name}:${client.profile} over ${resolved.agents} agents (run ${runId})`,
    );
    runs.push(
      await runHerd({
        runId,
        agents: resolved.agents,
        connections: resolved.connections,
        client,
        drop: resolved.drop,
        broker: resolved.broker,
        config,
        barrierBoundMs: resolved.barrierBoundMs,
        backBoundMs: resolved.boundMs,
        burstShare: resolved.burstShare,
        logDir: path.join(outDir, `agents-${client.name}-${client.profile}`),
        log,
        signal: controller.signal,
      }),
    );
    fs.writeFileSync(path.join(outDir, 'herd.json'), `${JSON.stringify(runs, null, 2)}\n`);
  }
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (runs.length === 0) return 1;
  await writeHerdReport(runs, outDir);
  for (const run of runs) {
    const m = run.merged;
    process.stdout.write(
      `${run.client.name}:${run.client.profile}: ${m.attempts} attempts (${m.failedAttempts} failed), peak ${m.peakAttempts} per 100 ms at ${m.peakAtMs === null ? '-' : (m.peakAtMs / 1000).toFixed(1)} s, middle 80 % of attempts within ${m.attemptMomentsMs === null ? '-' : `${Math.round(m.attemptMomentsMs.p10ToP90)} ms`}, all back ${m.allBackMs === null ? `never (${m.neverBack} not back)` : `${(m.allBackMs / 1000).toFixed(2)} s`} after the drop\n`,
    );
    for (const finding of run.findings) process.stdout.write(`  FINDING: ${finding}\n`);
  }
  process.stdout.write(`\nreport: ${path.join(outDir, 'report.md')}\nresult: ${path.join(outDir, 'herd.json')}\n`);
  return runs.every((run) => run.absent.length === 0 && run.merged.neverBack === 0) ? 0 : 1;
}

function resolveHerdFlags(flags: HerdFlags): {
  connections: number;
  agents: number;
  clients: ClientSpec[];
  drop: HerdDrop;
  broker: HerdBrokerChoice;
  boundMs: number;
  barrierBoundMs: number;
  burstShare: number;
} {
  const count = (flag: string, raw: string) => {
    if (!/^[1-9]\d*$/.test(raw.trim())) throw new ConfigError(flag, 'a whole number ≥ 1', raw);
    return Number(raw);
  };
  const connections = count('--connections', flags.connections);
  const agents = count('--agents', flags.agents);
  if (agents > connections)
    throw new ConfigError('--agents', `at most --connections (${connections}): an agent needs a connection`, flags.agents);
  const clients = parseClientSelection(flags.client ?? flags.clients);
  if (typeof clients === 'string')
    throw new ConfigError(
      '--clients',
      'a list of clients as BENCH_CLIENTS takes (amqp-connection-manager:defaults,...)',
      `${flags.clients} (${clients})`,
    );
  if (flags.drop !== 'broker_close' && flags.drop !== 'node_restart')
    throw new ConfigError('--drop', 'broker_close or node_restart', flags.drop);
  const drop: HerdDrop =
    flags.drop === 'broker_close' ? { kind: 'broker_close' } : { kind: 'node_restart', downMs: parseDurationMs(flags.down, '--down') };
  return {
    connections,
    agents,
    clients,
    drop,
    broker: parseHerdBroker(flags.broker, drop),
    boundMs: parseDurationMs(flags.bound, '--bound'),
    barrierBoundMs: parseDurationMs(flags.barrierTimeout, '--barrier-timeout'),
    burstShare: parseShare(flags.burstShare),
  };
}

/** `--broker`: auto, shared or node; a restart is never of the shared broker. @throws ConfigError */
export function parseHerdBroker(raw: string, drop: HerdDrop): HerdBrokerChoice {
  const choice = HERD_BROKER_CHOICES.find((each) => each === raw.trim());
  if (choice === undefined) throw new ConfigError('--broker', 'auto, shared or node', raw);
  if (choice === 'shared' && drop.kind === 'node_restart')
    throw new ConfigError('--broker', 'auto or node with --drop node_restart (the shared broker is never restarted)', raw);
  return choice;
}

/** `50%`, `50` or `0.5` -> 0.5. @throws ConfigError for anything outside (0, 1] */
export function parseShare(raw: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%)?\s*$/.exec(raw);
  const value = match ? Number(match[1]) / (match[2] || Number(match[1]) > 1 ? 100 : 1) : Number.NaN;
  if (!(value > 0 && value <= 1))
    throw new ConfigError('--burst-share', 'a share of the connections such as 50% (above 0, at most 100%)', raw);
  return value;
}
