/**
 * `broker_restart`: the node the clients use — a node the harness starts for it, never the shared
 * broker — stops gracefully (its clients get connection.close 320), stays down for a stated time
 * (connections refused: through the proxy, each attempt is accepted and closed at once, as real
 * Toxiproxy does when its upstream refuses), and starts again with its durable queues and their
 * messages (what every deploy and upgrade does). A client must retry through the refusals, not
 * give up after the first, and consume and publish again once the node serves.
 *
 * Its moment is the first connection.close from the stopping node where one arrives. RabbitMQ
 * closes every connection with 320 on a graceful stop, but the frame does not reach every client:
 * in one 22-configuration matrix run 10 of 44 connections got a bare close (6 a FIN, 4 a reset)
 * instead, connection by connection, whether the node was fresh or restarted before. A client
 * legitimately receives either, and the moment is then the stop call's start, an upper bound.
 * Which one a client gets is chance, and so is what follows from it in a library that writes
 * before it reads the close (cloudamqp: docs/guide/clients.md, Broker restart). Its removal reaching a
 * connection is the restarted node's connection.start on it (exact: the node served that client
 * again), not the start call, which includes the node's boot.
 */
import { nowNs, sleep } from '../../measure/clock';
import type { FaultDefinition } from '../model';
import { isFrame, parseDurationMs, required } from './arguments';
import { restart } from './nodeKill';
import { nodeActionFault } from './nodeAction';

export interface BrokerRestartOptions extends Record<string, number> {
  /** From the node's stop to the call that starts it again. @default 3000 */
  readonly down_ms: number;
}

export const brokerRestart: FaultDefinition<BrokerRestartOptions> = {
  kind: 'broker_restart',
  label: 'Broker restart',
  layer: 'node',
  broker: 'own_node',
  description: 'the node stops gracefully, stays down (connections refused), and starts again with its durable queues',
  argument: 'DOWN (how long the node stays down, e.g. 3s)',
  defaults: { down_ms: 3000 },
  parse: (argument) => ({
    down_ms: argument === undefined || argument === '' ? 3000 : parseDurationMs(argument, '--fault broker_restart:DOWN'),
  }),
  acted: (event) => isFrame(event, 'connection.close'),
  actedWords: 'first connection.close from the stopping node',
  expected: null,
  actsOnData: false,
  removedWhen: (event) => isFrame(event, 'connection.start'),
  removedWords: 'connection.start from the restarted node',
  matrix: {
    // The node's boot (some 5-15 s on two shared cores) is part of the removal's call; recovery is
    // timed from the node serving a connection again, and a library's own defaults may back off
    // for tens of seconds after the refusals (slow).
    bounds: (profile) =>
      profile === 'defaults'
        ? { detectionBoundMs: 15_000, recoveryBoundMs: 75_000 }
        : { detectionBoundMs: 15_000, recoveryBoundMs: 40_000 },
  },
  durableQueues: true,
  create(context, options) {
    const node = required(context.node, this.kind, 'a broker node of the harness’s own');
    let stoppedNs: bigint | null = null;
    return nodeActionFault(this, options, {
      target: { type: 'node', name: node.name },
      async act(hit, step) {
        const stopped = await node.stop();
        hit(node.name, 'stop', stopped.bracket);
        step({ target: node.name, step: 'stop', bracket: stopped.bracket, ...(stopped.problem ? { problem: stopped.problem } : {}) });
        stoppedNs = stopped.bracket.completedNs;
        context.log?.(`${node.name} stopped; down for ${options.down_ms / 1000} s`);
      },
      async undo(step) {
        if (stoppedNs === null && node.running()) return [];
        // The node stays down the stated time, counted from the end of its stop.
        const downSoFarMs = stoppedNs === null ? options.down_ms : Number(nowNs() - stoppedNs) / 1e6;
        if (downSoFarMs < options.down_ms) await sleep(options.down_ms - downSoFarMs);
        stoppedNs = null;
        return restart(node, step, context.log);
      },
    });
  },
};
