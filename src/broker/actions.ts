/**
 * What a fault may do to a broker (the fault model's `BrokerActions`), carried out by the
 * harness's own admin side: RabbitMQ's CLI for what only the node can do (close connections by
 * name, alarms) and a direct amqplib connection for topology (delete an exchange or a queue and
 * declare it again as the suite declared it). Closes target the harness's own connections only,
 * by `connection_name` prefix; alarms are refused on the shared broker (every client of it would
 * be blocked): only a node the harness started for it (`harnessNodeActions`) takes them.
 */
import { execFile } from 'node:child_process';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { closeBounded, socketOf } from '../client/amqplib/common';
import { BrokerError } from '../errors';
import type { BrokerActions } from '../faults/model';
import { sharedControlRunner } from './controlNode';

/** How the suite declared what a fault may delete (so it can be declared again the same way). */
export interface Topology {
  readonly exchanges: readonly { readonly name: string; readonly type: 'fanout' | 'direct' | 'topic' }[];
  readonly queues: readonly {
    readonly name: string;
    readonly durable?: boolean;
    readonly arguments?: Readonly<Record<string, unknown>>;
    readonly bindings: readonly { readonly exchange: string; readonly routingKey: string }[];
  }[];
}

/** Runs `rabbitmqctl <args>` against the node (bounded); resolves with its stdout. */
export type RabbitmqctlRunner = (args: readonly string[], boundMs: number) => Promise<string>;

/** BrokerActions with the admin connection they hold, closed at the end of the scenario. */
export interface ClosableBrokerActions extends BrokerActions {
  close(): Promise<void>;
}

const CLI_BOUND_MS = 30_000;
/** Connection-name prefixes the harness makes (uuid-based): nothing an Erlang string could be broken out of. */
const SAFE_PREFIX = /^[A-Za-z0-9._:-]+$/;

/** The default `rabbitmqctl` on this machine (the shared broker's node). */
export const systemRabbitmqctl: RabbitmqctlRunner = (args, boundMs) =>
  new Promise((resolve, reject) => {
    execFile('rabbitmqctl', ['-q', ...args], { timeout: boundMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (!error) {
        resolve(stdout);
        return;
      }
      // The tool's own words, a few lines (its first line alone is often just "Error:").
      const said = (stderr || stdout || error.message).trim().split('\n').filter(Boolean).slice(0, 4).join(' ');
      reject(new BrokerError(`rabbitmqctl ${args[0]} failed: ${said}`));
    });
  });

/** The shared broker's node, as results name it and as the system's rabbitmqctl reaches it. */
const SHARED_NODE = 'rabbit@localhost';

/**
 * Actions on the shared broker (the one on 5672): topology through `adminUrl`, closes through the
 * process's control node (./controlNode.ts), or the system's rabbitmqctl when that node cannot
 * start. Alarms are refused.
 */
export function sharedBrokerActions(adminUrl: string, topology: Topology = { exchanges: [], queues: [] }): ClosableBrokerActions {
  const rabbitmqctl = sharedControlRunner(SHARED_NODE, systemRabbitmqctl);
  return brokerActions({ node: SHARED_NODE, adminUrl, topology, rabbitmqctl, alarms: false });
}

export interface BrokerActionsOptions {
  /** As results name it. */
  readonly node: string;
  readonly adminUrl: string;
  readonly topology: Topology;
  readonly rabbitmqctl: RabbitmqctlRunner;
  /** True only for a node the harness started for faults that affect every client of it. */
  readonly alarms: boolean;
}

export function brokerActions(options: BrokerActionsOptions): ClosableBrokerActions {
  let admin: Promise<{ model: ChannelModel; channel: Channel }> | undefined;
  const channel = async (): Promise<Channel> => {
    admin ??= (async () => {
      const model = await amqp.connect(options.adminUrl, { timeout: 5000, noDelay: true });
      model.on('error', () => undefined);
      const opened = await model.createChannel();
      opened.on('error', () => undefined);
      return { model, channel: opened };
    })();
    return (await admin).channel;
  };
  const queueOf = (name: string) => {
    const queue = options.topology.queues.find((candidate) => candidate.name === name);
    if (!queue) throw new BrokerError(`queue ${name} is not in the scenario's topology: the harness cannot declare it again`);
    return queue;
  };
  const exchangeOf = (name: string) => {
    const exchange = options.topology.exchanges.find((candidate) => candidate.name === name);
    if (!exchange) throw new BrokerError(`exchange ${name} is not in the scenario's topology: the harness cannot declare it again`);
    return exchange;
  };
  return {
    node: options.node,
    async closeConnections(prefix, reason) {
      if (!SAFE_PREFIX.test(prefix))
        throw new BrokerError(`refusing to close connections named ${JSON.stringify(prefix)}*: not a harness prefix`);
      // One CLI call closes every matching connection at once (close_connection takes one pid per call, 0.3 s each).
      // A connection may close between the listing and the questions (other clients come and go):
      // each step is guarded, so one vanished connection never fails the whole call. One still in
      // its handshake (no connection.start-ok yet) has client_properties `none`, not a list: the
      // is_list filter skips it (without it the comprehension fails with bad_generator).
      const expression =
        `Prefix = <<"${prefix}">>, ` +
        'Info = fun(Pid) -> try rabbit_reader:info(Pid, [client_properties]) catch _:_ -> [] end end, ' +
        `Close = fun(Pid) -> try rabbit_networking:close_connection(Pid, "${reason.replace(/[^A-Za-z0-9 _:.-]/g, '')}") catch _:_ -> ok end end, ` +
        '[begin Close(Pid), binary_to_list(Name) end ' +
        '|| Pid <- rabbit_networking:connections(), {client_properties, Props} <- Info(Pid), is_list(Props), ' +
        '{<<"connection_name">>, longstr, Name} <- Props, binary:longest_common_prefix([Name, Prefix]) =:= byte_size(Prefix)].';
      const output = await options.rabbitmqctl(['eval', expression], CLI_BOUND_MS);
      return [...output.matchAll(/"([^"]*)"/g)].map((match) => match[1]!);
    },
    async deleteExchange(name) {
      exchangeOf(name);
      await (await channel()).deleteExchange(name);
    },
    async restoreExchange(name) {
      const exchange = exchangeOf(name);
      const admin = await channel();
      await admin.assertExchange(exchange.name, exchange.type, { durable: false, autoDelete: false });
      for (const queue of options.topology.queues)
        for (const binding of queue.bindings) if (binding.exchange === name) await admin.bindQueue(queue.name, name, binding.routingKey);
    },
    async deleteQueue(name) {
      queueOf(name);
      await (await channel()).deleteQueue(name);
    },
    async restoreQueue(name) {
      const queue = queueOf(name);
      const admin = await channel();
      await admin.assertQueue(queue.name, { durable: queue.durable ?? false, autoDelete: false, arguments: { ...queue.arguments } });
      for (const binding of queue.bindings) await admin.bindQueue(queue.name, binding.exchange, binding.routingKey);
    },
    async setMemoryAlarm(raised) {
      if (!options.alarms)
        throw new BrokerError(
          `refusing to raise an alarm on ${options.node}: it blocks every client of the node; alarms run on a node the harness starts for them`,
        );
      // 0 blocks every publisher at once; 0.4 is RabbitMQ's default watermark.
      await options.rabbitmqctl(['set_vm_memory_high_watermark', raised ? '0' : '0.4'], CLI_BOUND_MS);
    },
    async close() {
      const held = admin;
      admin = undefined;
      if (!held) return;
      const { model } = await held.catch(() => ({ model: undefined }));
      if (model) await closeBounded(model, socketOf(model));
    },
  };
}
