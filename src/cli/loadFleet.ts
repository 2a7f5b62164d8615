/**
 * `bench load` as part of a fleet (loadFleetMode.ts says which part): N agents on this machine
 * and their coordinator, one agent, the coordinator alone, or the Kubernetes manifests. The
 * coordinator's outcome is recorded like any load run: the merged result, one row per agent, the
 * agents' own files beside it, and every agent that did not deliver named.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatHostPort, workDir, type BenchConfig } from '../config';
import { ensureProxyApi, type ProxyApiHandle } from '../faults/proxyProcess';
import { sleep } from '../measure/clock';
import { runAgent } from '../fleet/agent';
import { writeAgentResult } from '../fleet/agentResult';
import { coordinateFleet, type FleetRun } from '../fleet/coordinator';
import { k8sManifests } from '../fleet/k8s';
import { startLocalAgents, type LocalAgents } from '../fleet/local';
import { mergeFleet } from '../fleet/merge';
import { workloadInputOf } from '../load/workload';
import type { LoadCliOptions, LoadFlags } from './loadFlags';
import type { FleetMode } from './loadFleetMode';
import { fleetProgress, recordFleet } from './loadFleetOutput';
import { outputFolder } from './loadOutput';

type Mode<K extends FleetMode['kind']> = Extract<FleetMode, { kind: K }>;

interface FleetContext {
  readonly options: LoadCliOptions;
  readonly flags: LoadFlags;
  readonly config: BenchConfig;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

/** Runs the fleet part `options.fleet` names; resolves with the exit code. */
export async function runFleetPart(context: FleetContext): Promise<number> {
  const { fleet } = context.options;
  if (fleet.kind === 'emit-k8s') return emitK8s(context, fleet);
  if (fleet.kind === 'agent') return runOneAgent(context, fleet);
  if (fleet.kind === 'coordinate') return coordinateAndRecord(context, fleet, undefined);
  if (fleet.kind === 'local') return runLocalFleet(context, fleet);
  throw new Error('runFleetPart called for a process alone');
}

function emitK8s(context: FleetContext, fleet: Mode<'emit-k8s'>): number {
  const { options, flags } = context;
  const file = path.resolve(workDir(), fleet.file);
  fs.writeFileSync(
    file,
    k8sManifests({
      runId: fleet.runId,
      agents: fleet.agents,
      workload: options.workload,
      image: fleet.image,
      secretName: fleet.secretName,
      viaProxy: flags.proxy && options.workload.faults.length > 0,
      barrierBoundMs: fleet.barrierBoundMs,
      lingerMs: fleet.lingerMs,
      catchUpMs: options.catchUpMs,
      drainMs: 15_000,
    }),
  );
  process.stdout.write(
    `wrote ${file}: run ${fleet.runId}, ${fleet.agents} agent pod(s) (an Indexed Job) and the coordinator (a Job)\nthen: kubectl create secret generic ${fleet.secretName} --from-literal=url='amqp://USER:PASSWORD@HOST:5672/VHOST'; kubectl apply -f ${fleet.file}\n`,
  );
  return 0;
}

async function runOneAgent(context: FleetContext, fleet: Mode<'agent'>): Promise<number> {
  const { options, config, flags } = context;
  const startedAt = new Date();
  const outDir = outputFolder(flags.output, workDir(), config.reportsDir, `${options.workload.name}_agent${fleet.index}`, startedAt);
  const file = await runAgent({
    runId: fleet.runId,
    index: fleet.index,
    count: fleet.agents,
    workload: options.workload,
    // An agent's own proxy forwards to the broker it was given, unless told otherwise.
    config: process.env.BENCH_PROXY_UPSTREAM ? config : { ...config, proxyUpstream: hostPortOf(config.amqpUrl) },
    viaProxy: flags.proxy,
    intervalMs: options.intervalMs,
    catchUpMs: options.catchUpMs,
    drainMs: 15_000,
    barrier: fleet.barrier,
    signal: context.signal,
    log: context.log,
  });
  fs.mkdirSync(outDir, { recursive: true });
  const filePath = path.join(outDir, `agent-${fleet.index}.json`);
  writeAgentResult(filePath, file);
  context.log(`agent ${fleet.index}: ${file.status}${file.error ? ` (${file.error})` : ''}; ${filePath}`);
  return file.status === 'completed' ? 0 : 1;
}

async function runLocalFleet(context: FleetContext, fleet: Mode<'local'>): Promise<number> {
  const { options, config, flags, log } = context;
  const startedAt = new Date();
  const outDir = outputFolder(flags.output, workDir(), config.reportsDir, options.workload.name, startedAt);
  const agentsDir = path.join(outDir, 'agents');
  fs.mkdirSync(agentsDir, { recursive: true });
  const workloadFile = path.join(agentsDir, 'workload.json');
  fs.writeFileSync(workloadFile, `${JSON.stringify(workloadInputOf(options.workload), null, 2)}\n`);
  const entries = flags.proxy ? await agentProxyEntries(config, fleet, log) : undefined;
  let agents: LocalAgents | undefined;
  try {
    agents = startLocalAgents({
      count: fleet.agents,
      args: (index) => [
        workloadFile,
        ...['--agent', String(index), '--agents', String(fleet.agents), '--run-id', fleet.runId],
        ...['--interval', flags.interval, '--catch-up', flags.catchUp, '--barrier-timeout', `${fleet.barrierBoundMs}ms`, '-o', agentsDir],
        ...(flags.proxy ? [] : ['--no-proxy']),
      ],
      env: (index) => entries?.envOf(index) ?? {},
      logDir: agentsDir,
      log,
    });
    log(`fleet ${fleet.runId}: ${fleet.agents} agent process(es) started (pids ${agents.pids.join(', ')}); their logs in ${agentsDir}`);
    const started = agents;
    return await coordinateAndRecord(
      context,
      { ...fleet, kind: 'coordinate', lingerMs: 0 },
      { gone: () => started.gone(), outDir, startedAt },
    );
  } finally {
    await agents?.stop();
    await entries?.close();
  }
}

/** One proxy entry per agent (its own listen port), so each applies the fault schedule to its own connections only. */
async function agentProxyEntries(
  config: BenchConfig,
  fleet: Mode<'local'>,
  log: (line: string) => void,
): Promise<{ envOf(index: number): Record<string, string>; close(): Promise<void> }> {
  const api: ProxyApiHandle = await ensureProxyApi(config, log);
  const names = Array.from({ length: fleet.agents }, (_, index) => `bench-fleet-${fleet.runId}-a${index}`);
  const listens: string[] = [];
  try {
    for (const name of names)
      listens.push(
        (await api.client.createProxy({ name, listen: '127.0.0.1:0', upstream: formatHostPort(config.proxyUpstream), enabled: true }))
          .listen,
      );
  } catch (error) {
    for (const name of names) await api.client.deleteProxy(name).catch(() => undefined);
    await api.stop();
    throw error;
  }
  return {
    envOf: (index) => ({
      // The API this fleet uses: a proxy of its own (TOXIPROXY_URL unset) listens on a free port.
      TOXIPROXY_URL: api.client.apiUrl,
      BENCH_PROXY_NAME: names[index]!,
      BENCH_PROXY_LISTEN: listens[index]!,
      BENCH_EMBEDDED_PROXY: 'never',
    }),
    async close() {
      for (const name of names) await api.client.deleteProxy(name).catch(() => undefined);
      await api.stop();
    },
  };
}

async function coordinateAndRecord(
  context: FleetContext,
  fleet: Mode<'coordinate'>,
  local: { gone: LocalAgents['gone']; outDir: string; startedAt: Date } | undefined,
): Promise<number> {
  const { options, config, flags, log } = context;
  const startedAt = local?.startedAt ?? new Date();
  const outDir = local?.outDir ?? outputFolder(flags.output, workDir(), config.reportsDir, options.workload.name, startedAt);
  const { workload } = options;
  const run: FleetRun = await coordinateFleet({
    runId: fleet.runId,
    count: fleet.agents,
    workload,
    amqpUrl: config.amqpUrl,
    barrierBoundMs: fleet.barrierBoundMs,
    runBoundMs: workload.warmupMs + workload.durationMs + options.catchUpMs + 15_000 + 10_000 + 30_000,
    silenceBoundMs: 15_000,
    signal: context.signal,
    log,
    ...(local ? { gone: local.gone } : {}),
    onAlive: fleetProgress(log),
  });
  fs.mkdirSync(path.join(outDir, 'agents'), { recursive: true });
  for (const file of run.files) writeAgentResult(path.join(outDir, 'agents', `agent-${file.agent.index}.json`), file);
  for (const each of run.absent) log(`fleet: MISSING agent ${each.agent}: ${each.reason}`);
  if (!run.files.some((file) => file.result !== null)) {
    log(`fleet ${fleet.runId}: no agent ran its share; nothing to merge (agents' files, if any, in ${path.join(outDir, 'agents')})`);
    return 1;
  }
  const merged = mergeFleet({ runId: fleet.runId, agentCount: fleet.agents, workload, files: run.files, absent: run.absent });
  const code = await recordFleet(merged, { outDir, startedAt, amqpUrl: config.amqpUrl, reportsDir: config.reportsDir, log });
  if (fleet.lingerMs > 0 && !context.signal.aborted) {
    log(`fleet: results in ${outDir}; lingering ${fleet.lingerMs / 1000} s for kubectl cp (SIGTERM ends it)`);
    await Promise.race([
      sleep(fleet.lingerMs),
      new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true })),
    ]);
  }
  return code;
}

/** `amqp://u:p@host:5672/v` -> host:5672 (the proxy upstream an agent's own proxy forwards to). */
function hostPortOf(amqpUrl: string): BenchConfig['proxyUpstream'] {
  const url = new URL(amqpUrl);
  return { host: url.hostname, port: url.port === '' ? (url.protocol === 'amqps:' ? 5671 : 5672) : Number(url.port) };
}
