/**
 * `bench check-adapter <module>` (installed: `amqp-bench check-adapter`): the adapter contract
 * (src/client/contract/) run against an adapter from outside — or a built-in one, by name — on
 * the real broker, through a fault proxy it starts itself on free ports, one line per check saying
 * in plain words what the adapter does wrong. Exit code 0 when every check passed, 1 when one
 * failed, 2 when the module cannot be used at all.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { CLIENT_PROFILES, type ClientProfile, type ClientSpec } from '../client/api';
import { CONTRACT_CHECKS, runContract, type AlarmNode, type CheckOutcome } from '../client/contract';
import { CHECK_ADAPTER_NODE, startSoloNode, type SoloNode } from '../broker/nodes/soloNode';
import { resolveClusterSettings } from '../broker/nodes/settings';
import { formatDuration } from '../client/contract/types';
import { CLIENT_NAMES, loadClientModule } from '../client/registry';
import { getConfig, workDir } from '../config';
import { ConfigError, describeError } from '../errors';
import { redactSecrets, redactText, redactUrl, secretsOf } from '../redact';

export interface CheckAdapterInput {
  readonly profile?: string;
  /** Start a RabbitMQ node of the command's own, for the blocked / unblocked check. */
  readonly alarmNode?: boolean;
}

const MARKS: Readonly<Record<CheckOutcome['status'], string>> = { passed: '✅', failed: '❌', skipped: '➖', finding: '❗' };

export function registerCheckAdapterCommand(program: Command): void {
  program
    .command('check-adapter')
    .description(
      'Check a client adapter against the contract every suite relies on, on the real broker and through a fault proxy of its own: one line per check, saying what the adapter does wrong',
    )
    .argument(
      '<module>',
      "the adapter module (its default export, or its export `adapter`, is a ClientAdapter), or a client program of any language speaking the client protocol (an executable; schemas/client-protocol.schema.json), relative to the folder the command starts in; or a built-in client's name",
    )
    .option('--profile <profile>', `the profile to connect with: ${CLIENT_PROFILES.join(' or ')} (default: the first the adapter supports)`)
    .option(
      '--alarm-node',
      `also check blocked / unblocked: start a RabbitMQ node of the command's own (${SOLO_NODE_WORDS}, about 10 s to boot) and raise a memory alarm on it; stopped again at the end`,
    )
    .addHelpText(
      'after',
      `
The broker is AMQP_URL's; queues are declared and deleted over the command's own connection,
and the fault proxy (an embedded one, on free ports) resets only the adapter's own connections.
Nothing is ever set on the broker itself: blocked / unblocked are checked only with --alarm-node,
on a node the command starts and stops (its own name, ports and data; never the broker's).
Exit code 0 when no check failed, 1 when one did, 2 when the module cannot be loaded. A check
that saw the client fail as the suites report a finding of it (❗: a confirm that never settled,
though the broker took the message) says so with the evidence, and fails nothing.
Examples:
  npx amqp-bench check-adapter ./bench/myClient.ts
  npx amqp-bench check-adapter ./bench/myClient.ts --profile normalised
  npx amqp-bench check-adapter ./bench/myClient.ts --alarm-node     blocked / unblocked too
  node bin/bench.js check-adapter rabbitmq-client          a built-in adapter, for comparison
  npx amqp-bench check-adapter ./my-client                 a client program (any language, the client protocol)
  node bin/bench.js check-adapter kombu                    a built-in client program (Python; scripts/setup-clients.sh)`,
    )
    .action(async (modulePath: string, input: CheckAdapterInput) => {
      const exitCode = await runCheckAdapter(modulePath, input);
      process.exitCode = exitCode;
      exitIfHeldOpen(exitCode);
    });
}

/** How long the process may stay alive after the last check closed everything it opened. */
const EXIT_GRACE_MS = 5000;

/**
 * Every check's connections are closed (bounded) and the harness's own proxy and admin connection
 * are gone: what still keeps Node alive is the adapter's (a close() that never ended, or left a
 * socket or timer behind). The command must not hang on it: it says so and exits, with 1.
 */
function exitIfHeldOpen(exitCode: number): void {
  setTimeout(() => {
    const held = process.getActiveResourcesInfo().filter((kind) => !['TTYWrap', 'PipeWrap', 'Timeout'].includes(kind));
    process.stderr.write(
      `bench: ${formatDuration(EXIT_GRACE_MS)} after the last check, the process is still held open (${describeHeld(held)}): the adapter's close() left something behind, or never ended; exiting\n`,
    );
    process.exit(exitCode === 0 ? 1 : exitCode);
  }, EXIT_GRACE_MS).unref();
}

/** `TCPSocketWrap ×2, Timeout`: what holds the process. */
function describeHeld(kinds: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => (count > 1 ? `${kind} ×${count}` : kind)).join(', ') || 'timers';
}

/** Runs the contract and prints it; resolves with the exit code. */
export async function runCheckAdapter(
  entry: string,
  input: CheckAdapterInput,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  logError: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  cwd: string = workDir(),
): Promise<number> {
  let spec: ClientSpec;
  let amqpUrl: string;
  try {
    spec = resolveSpec(entry, input.profile, cwd);
    amqpUrl = getConfig().amqpUrl;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One line, whatever the module's loader said (a compile error spans several).
    logError(`bench: ${redactText(describeError(error)).replace(/\s*\n\s*/g, ' ')}`);
    return 2;
  }
  const from = spec.module === undefined ? 'built in' : `from ${displayPath(spec.module, cwd)}`;
  log(`Checking the adapter "${spec.name}" (${spec.profile}), ${from}, against ${redactUrl(amqpUrl)} and a fault proxy of its own`);
  const startedMs = performance.now();
  // A library's words may quote the URL it was given, or the password alone.
  const secrets = secretsOf(amqpUrl);
  const alarm = input.alarmNode ? await startAlarmNode(log, logError) : undefined;
  if (alarm === null) return 2;
  let outcomes: readonly CheckOutcome[];
  try {
    ({ outcomes } = await runContract(
      spec,
      amqpUrl,
      (outcome) => log(redactSecrets(`${MARKS[outcome.status]} ${outcome.name}: ${outcome.words}`, secrets)),
      CONTRACT_CHECKS,
      alarm?.node,
    ));
  } finally {
    await alarm?.stop();
  }
  const count = (status: CheckOutcome['status']) => outcomes.filter((outcome) => outcome.status === status).length;
  const named = (status: CheckOutcome['status']) => outcomes.filter((outcome) => outcome.status === status).map((outcome) => outcome.name);
  const failed = named('failed');
  const findings = named('finding');
  const counts = [
    `${count('passed')} passed`,
    ...(failed.length > 0 ? [`${failed.length} failed`] : []),
    `${count('skipped')} not checked`,
    ...(findings.length > 0 ? [`${findings.length} finding(s) of the client`] : []),
  ];
  const verdict =
    (failed.length === 0 ? 'it keeps the contract' : `it does not keep the contract (${failed.join(', ')})`) +
    (findings.length > 0 ? `; the client's findings: ${findings.join(', ')}` : '');
  log(`${spec.name} (${spec.profile}): ${counts.join(', ')}: ${verdict}, in ${formatDuration(performance.now() - startedMs)}`);
  return failed.length === 0 ? 0 : 1;
}

/** What the help says of the node: its name and ports are chosen at each start. */
const SOLO_NODE_WORDS = `${CHECK_ADAPTER_NODE.kind}-<pid>-<n>, on free ports`;

/** The alarm node, started and ready; null (said why) when it could not start. */
async function startAlarmNode(
  log: (line: string) => void,
  logError: (line: string) => void,
): Promise<{ node: AlarmNode; stop: () => Promise<void> } | null> {
  log('Starting a RabbitMQ node of its own for the alarm check');
  let solo: SoloNode;
  try {
    solo = await startSoloNode(resolveClusterSettings(), () => undefined, CHECK_ADAPTER_NODE);
  } catch (error) {
    logError(`bench: --alarm-node: ${redactText(describeError(error))}`);
    return null;
  }
  log(`Alarm node: ${solo.node.name}, AMQP 127.0.0.1:${solo.node.amqpPort}`);
  const actions = solo.brokerActions({ exchanges: [], queues: [] });
  return {
    node: { url: solo.url, setMemoryAlarm: (raised) => actions.setMemoryAlarm(raised) },
    stop: async () => {
      await actions.close().catch(() => undefined);
      await solo.stop().catch((error: unknown) => logError(`bench: --alarm-node: stopping it: ${redactText(describeError(error))}`));
    },
  };
}

/** The client to check: a built-in name, or a module (loaded now: a bad one is said before anything connects). @throws ConfigError */
function resolveSpec(entry: string, profileOption: string | undefined, cwd: string): ClientSpec {
  if (profileOption !== undefined && !(CLIENT_PROFILES as readonly string[]).includes(profileOption))
    throw new ConfigError('--profile', CLIENT_PROFILES.join(' or '), profileOption);
  if ((CLIENT_NAMES as readonly string[]).includes(entry))
    return { name: entry, profile: (profileOption as ClientProfile | undefined) ?? 'defaults' };
  const module = path.resolve(cwd, entry);
  const adapter = loadClientModule(module, 'check-adapter <module>');
  const supported = adapter.profiles ?? CLIENT_PROFILES;
  const profile = (profileOption as ClientProfile | undefined) ?? supported[0] ?? 'defaults';
  if (!supported.includes(profile))
    throw new ConfigError('--profile', `a profile the adapter supports (${supported.join(', ')})`, profileOption);
  return { name: adapter.name, profile, module };
}

/** `bench/myClient.ts` inside the folder the command started in, the absolute path otherwise. */
function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
