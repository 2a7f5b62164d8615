/**
 * A network fault and what follows, through the contract's own fault proxy: the proxy resets the
 * connection (RST) as data flows towards the client; the adapter must report it once, as a
 * `reset`, timed when it happened; once the reset is lifted it must come back (ensureConnected),
 * with its publishers and consumers working again and `localPort` following the new socket.
 * The checks of this group share one connection: each builds on the one before and says so
 * when that one did not get far enough.
 */
import { describeError } from '../../errors';
import { nowNs, elapsedMs } from '../../measure/clock';
import type { ClientConnection, ClientFault, Publisher } from '../api';
import { ProgramConnection } from '../process/connection';
import { confirmSettles, DELIVERY_BOUND_MS } from './trafficChecks';
import { ClientFinding, ContractViolation, NotChecked, formatDuration, needs, type CheckContext, type ContractCheck } from './types';

/** How long the adapter may take to tell a reset it received. */
const FAULT_BOUND_MS = 5000;
/** ensureConnected's deadline once the reset is lifted (amqp-connection-manager's defaults retry after 5 s). */
const BACK_BOUND_MS = 30_000;

interface ResetScenario {
  readonly connection: ClientConnection;
  readonly publisher: Publisher;
  /** The consumed queue, and the one the publisher publishes to after recovery (nobody consumes it). */
  readonly queue: string;
  readonly publishQueue: string;
  readonly received: string[];
  readonly faults: { readonly fault: ClientFault; readonly toldNs: bigint }[];
  /** localPort before the reset, and the client ports the proxy saw then. */
  readonly portBefore: number | undefined;
  readonly proxyPortsBefore: readonly number[];
  /** Set once ensureConnected resolved. */
  back?: boolean;
}

const scenarios = new WeakMap<object, ResetScenario>();

/** The group's connection, once the reset reached it; skipped otherwise. */
function scenarioOf(context: CheckContext, needsBack: boolean): ResetScenario {
  const scenario = scenarios.get(context.scope);
  if (!scenario) throw new NotChecked('not checked: the reset never reached a connection (see onFault)');
  if (needsBack && !scenario.back) throw new NotChecked('not checked: the connection did not come back (see ensureConnected)');
  return scenario;
}

export const onFaultCheck: ContractCheck = {
  name: 'onFault',
  group: 'reset',
  boundMs: 30_000,
  async run(context) {
    needs(context, 'connect');
    context.step('connecting through the fault proxy');
    const connection = await context.connect('proxy');
    const faults: ResetScenario['faults'] = [];
    connection.onFault((fault) => faults.push({ fault, toldNs: nowNs() }));
    const queue = await context.broker.declareQueue('amqp-bench.check-adapter.reset');
    const publishQueue = await context.broker.declareQueue('amqp-bench.check-adapter.reset-publish');
    const received: string[] = [];
    context.step('consuming and publishing through the proxy before the reset');
    await connection.consume(queue, { ack: 'auto' }, (delivery) => received.push(delivery.body.toString()));
    const publisher = await connection.publisher({ confirms: true });
    // Its delivery shows the traffic flows; its confirm is the publish checks' business (and the reset may nack it).
    publisher.publish('', queue, Buffer.from('before')).catch(() => undefined);
    if (!(await context.waitUntil(() => received.includes('before'), DELIVERY_BOUND_MS)))
      throw new ContractViolation(
        `through the proxy, before any fault, a published message did not arrive within ${formatDuration(DELIVERY_BOUND_MS)}`,
      );
    const scenario: ResetScenario = {
      connection,
      publisher,
      queue,
      publishQueue,
      received,
      faults,
      portBefore: connection.localPort,
      proxyPortsBefore: await context.faults.openClientPorts(),
    };

    context.step('resetting the connection (RST from the proxy)');
    const armedNs = await context.faults.resetOnNextData();
    scenarios.set(context.scope, scenario);
    // Data towards the client is what trips the reset.
    await context.broker.send(queue, 'trigger');
    context.step('waiting for the fault');
    if (!(await context.waitUntil(() => faults.length > 0, FAULT_BOUND_MS)))
      throw new ContractViolation(
        `a TCP reset gave no fault within ${formatDuration(FAULT_BOUND_MS)} (\`state\` says ${JSON.stringify(connection.state)}): the adapter does not report faults (call the onFault listeners from the library's earliest error or close event)`,
      );
    const [{ fault, toldNs }] = faults as [ResetScenario['faults'][number]];
    if (fault.kind !== 'reset')
      throw new ContractViolation(
        `a TCP reset was reported as kind "${fault.kind}" ("${fault.message}"), not "reset": classify what the library says (classifyFault from amqp-bench/adapter does)`,
      );
    if (fault.detectedNs < armedNs || fault.detectedNs > toldNs)
      throw new ContractViolation(
        `the fault is timed ${fault.detectedNs < armedNs ? `${formatDuration(elapsedMs(fault.detectedNs, armedNs))} before the reset was injected` : 'after its listener was called'}: time it with nowNs() in the library's event`,
      );
    // The state is read once the listener has run: a connection that has just failed is down.
    await context.sleep(10);
    if (connection.state !== 'down')
      throw new ContractViolation(
        'after the fault, `state` says ${JSON.stringify(connection.state)}: a connection that failed is "down" until it is back',
      );
    return `"${fault.kind}" ("${fault.message}"), told ${formatDuration(elapsedMs(armedNs, fault.detectedNs))} after the reset was armed`;
  },
};

export const ensureConnectedCheck: ContractCheck = {
  name: 'ensureConnected',
  group: 'reset',
  boundMs: BACK_BOUND_MS + 5000,
  async run(context) {
    const scenario = scenarioOf(context, false);
    const { connection, faults } = scenario;
    context.step('lifting the reset');
    await context.faults.heal();
    context.step(`waiting for the client to come back (ensureConnected(${formatDuration(BACK_BOUND_MS)}))`);
    const liftedNs = nowNs();
    let ensured;
    try {
      ensured = await connection.ensureConnected(BACK_BOUND_MS);
    } catch (error) {
      throw new ContractViolation(
        `after the reset was lifted, ensureConnected(${formatDuration(BACK_BOUND_MS)}) threw: ${describeError(error)}: the client did not come back`,
      );
    }
    scenario.back = true;
    if (connection.state !== 'up')
      throw new ContractViolation(`ensureConnected resolved with \`state\` ${JSON.stringify(connection.state)}, not "up"`);
    if (ensured.attempts < 1)
      throw new ContractViolation(
        'ensureConnected says 0 attempts after an outage: count the connection attempts since the fault (1: the first worked)',
      );
    if (faults.length > 1)
      throw new ContractViolation(
        `one reset gave ${faults.length} faults (${faults.map(({ fault }) => fault.kind).join(', ')}): onFault is called once per failed connection`,
      );
    return `back after ${ensured.attempts} attempt(s), ${formatDuration(Math.max(0, elapsedMs(liftedNs, ensured.connectedNs)))} after the reset was lifted`;
  },
};

export const localPortCheck: ContractCheck = {
  name: 'localPort',
  group: 'reset',
  boundMs: 10_000,
  async run(context) {
    const { connection, portBefore, proxyPortsBefore } = scenarioOf(context, true);
    if (portBefore === undefined && connection.localPort === undefined)
      return 'undefined: the library hides its socket (allowed; the harness then cannot tell this connection among others on the proxy)';
    if (portBefore === undefined || !proxyPortsBefore.includes(portBefore))
      throw new ContractViolation(
        `before the reset, \`localPort\` was ${portBefore}, not the port of any connection the proxy saw (${proxyPortsBefore.join(', ') || 'none'}): give the local port of the socket the library really uses`,
      );
    context.step('reading the connections the proxy sees after the reconnection');
    const portsNow = await context.faults.openClientPorts();
    const portNow = connection.localPort;
    if (portNow === undefined || !portsNow.includes(portNow))
      throw new ContractViolation(
        `after the reconnection, \`localPort\` is ${portNow}${portNow === portBefore ? " (the old socket's)" : ''}, not the port of a connection the proxy sees now (${portsNow.join(', ') || 'none'}): read it from the current socket`,
      );
    return `${portBefore} before the reset, ${portNow} after: the proxy saw both`;
  },
};

export const publisherRecoveryCheck: ContractCheck = {
  name: 'publisher after recovery',
  group: 'reset',
  boundMs: 15_000,
  async run(context) {
    const { publisher, publishQueue } = scenarioOf(context, true);
    context.step('publishing with confirms on the publisher opened before the reset');
    try {
      await confirmSettles(
        context,
        publisher.publish('', publishQueue, Buffer.from('after')),
        'a confirmed publish on the publisher opened before the reset',
        async () => (await context.broker.inspect(publishQueue)).ready === 1,
      );
    } catch (error) {
      if (error instanceof ClientFinding) throw error;
      throw new ContractViolation(
        `after the connection was reset and came back, ${
          error instanceof ContractViolation
            ? error.message
            : `a confirmed publish on the publisher opened before the reset threw: ${describeError(error)}`
        }: the adapter does not re-create publishers (or its library does not)`,
      );
    }
    const { ready } = await context.broker.inspect(publishQueue);
    if (ready !== 1)
      throw new ContractViolation(
        `after the connection came back, a confirmed publish resolved but the broker holds ${ready} messages, not 1`,
      );
    return 'the publisher opened before the reset publishes again';
  },
};

export const consumerRecoveryCheck: ContractCheck = {
  name: 'consumer after recovery',
  group: 'reset',
  boundMs: 15_000,
  async run(context) {
    const { queue, received } = scenarioOf(context, true);
    context.step('sending a message to the queue consumed before the reset');
    await context.broker.send(queue, 'after');
    context.step('waiting for its delivery');
    if (!(await context.waitUntil(() => received.includes('after'), DELIVERY_BOUND_MS))) {
      const { consumers } = await context.broker.inspect(queue);
      throw new ContractViolation(
        `after the connection was reset and came back, the consumer received nothing within ${formatDuration(DELIVERY_BOUND_MS)} (the broker counts ${consumers} consumer(s) on its queue): the adapter does not re-establish consumers (or its library does not)`,
      );
    }
    return 'the consumer started before the reset receives again';
  },
};

export const recoverCheck: ContractCheck = {
  name: 'recover',
  group: 'reset',
  boundMs: 15_000,
  async run(context) {
    const { connection, queue } = scenarioOf(context, true);
    if (!(connection instanceof ProgramConnection) || !connection.recoversInProgram)
      return "not a client program speaking `recover`: the harness makes the recovery's round trip itself";
    context.step('asking the program to recover (up: no attempt) and to prove it with a probe through its consumer');
    const askedNs = nowNs();
    let recovered;
    try {
      recovered = await connection.recoverWithProbe(queue, 5000, DELIVERY_BOUND_MS);
    } catch (error) {
      throw new ContractViolation(`\`recover\` on a connection that is up failed: ${describeError(error)}`);
    }
    const answeredNs = nowNs();
    const { attempts, recoveryStartedNs, connectedNs, recoveredNs } = recovered;
    if (attempts !== 0) throw new ContractViolation(`\`recover\` on a connection that is up says ${attempts} attempt(s), not 0`);
    if (!(askedNs <= recoveryStartedNs && recoveryStartedNs <= connectedNs && connectedNs <= recoveredNs && recoveredNs <= answeredNs))
      throw new ContractViolation(
        `\`recover\`'s times are out of order (asked ${askedNs}, started ${recoveryStartedNs}, connected ${connectedNs}, probe back ${recoveredNs}, answered ${answeredNs} ns): read CLOCK_MONOTONIC when the command is taken up, when the connection is back and when the library hands the probe over`,
      );
    return `the probe back ${formatDuration(elapsedMs(recoveryStartedNs, recoveredNs))} after the program took the command up`;
  },
};
