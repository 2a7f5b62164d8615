/**
 * One long-lived hidden Erlang node that evaluates expressions on the shared broker's node, so a
 * fault that closes the harness's connections by name does not boot a `rabbitmqctl` (an Erlang VM
 * and the Elixir CLI: 1.4 s each call on two cores) per replicate. The node is `erl -hidden`
 * with the broker node's cookie, read where rabbitmqctl finds it; it only forwards what the broker
 * actions send it (`eval` expressions, one a line), answering one line each (`ok <term>` or
 * `error <reason>`).
 *
 * Lifecycle: started on first use (`sharedControlRunner`), reused by every later call of the
 * process, stopped by `closeSharedControlNode` (after each benchmark file) or at process exit. It
 * reads its commands from stdin and halts at end of input, so a harness that dies (even by
 * SIGKILL) leaves no node behind. A node that cannot start, reach the broker or answer within the
 * bound is never tried again in that process: the calls go to `rabbitmqctl` as before.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { BrokerError } from '../errors';
import type { RabbitmqctlRunner } from './actions';

/** How long a started node may take to boot and reach the broker before rabbitmqctl is used instead. */
const START_BOUND_MS = 10_000;

/**
 * The loop the node runs: ping the target (exit 3 when it does not answer), then for each line
 * parse it as Erlang expressions and evaluate them on the target as `rabbitmqctl eval` does
 * (erl_eval there), printing the value on one line; halt at end of input.
 */
const CONTROL_LOOP = [
  'Target = list_to_atom(os:getenv("AMQP_BENCH_CONTROL_TARGET")),',
  'Reply = fun(Status, Term) -> io:put_chars([Status, " ", re:replace(io_lib:print(Term, 1, 1000000, -1), "\\n", " ", [global]), "\\n"]) end,',
  'case net_adm:ping(Target) of pong -> io:put_chars("ready\\n"); pang -> io:put_chars("unreachable\\n"), halt(3) end,',
  "Loop = fun Loop() -> case io:get_line('') of",
  '  eof -> halt(0); {error, _} -> halt(0);',
  '  Line -> try {ok, Tokens, _} = erl_scan:string(Line), {ok, Exprs} = erl_parse:parse_exprs(Tokens),',
  '      case rpc:call(Target, erl_eval, exprs, [Exprs, []], 30000) of',
  '        {value, Value, _} -> Reply("ok", Value); {badrpc, Why} -> Reply("error", Why) end',
  '    catch Class:Error -> Reply("error", {Class, Error}) end, Loop() end end,',
  'Loop().',
].join(' ');

/** A running control node: evaluates one expression at a time on the target node. */
export interface ControlNode {
  /** Evaluates `expression` (one line, ending in a dot) on the target; resolves with the value as Erlang prints it. */
  evaluate(expression: string, boundMs: number): Promise<string>;
  /** The node's process id (to prove it is gone). */
  readonly pid: number | undefined;
  close(): void;
}

/**
 * The cookie the broker node shares with its CLI: RABBITMQ_ERLANG_COOKIE, else the one in this
 * user's home, else the rabbitmq user's (the packaged rabbitmqctl, run as root, runs as that user).
 */
export function readBrokerCookie(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.RABBITMQ_ERLANG_COOKIE) return env.RABBITMQ_ERLANG_COOKIE;
  for (const file of [path.join(os.homedir(), '.erlang.cookie'), '/var/lib/rabbitmq/.erlang.cookie']) {
    try {
      const cookie = fs.readFileSync(file, 'utf8').trim();
      if (cookie) return cookie;
    } catch {
      // Not there or not readable: the next place.
    }
  }
  return undefined;
}

/** How a control node for `target` is started (a unique hidden name; the loop above). */
export function controlNodeCommand(target: string, cookie: string): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const name = `amqp_bench_ctl_${process.pid}_${randomUUID().slice(0, 8)}`;
  // One scheduler and one async thread: the node only forwards a call now and then.
  return {
    file: 'erl',
    args: ['-sname', name, '-hidden', '-setcookie', cookie, '-noshell', '+S', '1', '+A', '1', '-eval', CONTROL_LOOP],
    env: { ...process.env, AMQP_BENCH_CONTROL_TARGET: target },
  };
}

/**
 * Starts a hidden node aimed at `target` and waits until it reached it.
 * @throws BrokerError when erl cannot start, no cookie is found, or the target does not answer within the bound
 */
export async function startControlNode(target: string, boundMs = START_BOUND_MS): Promise<ControlNode> {
  const cookie = readBrokerCookie();
  if (!cookie) throw new BrokerError('no Erlang cookie for the broker node (RABBITMQ_ERLANG_COOKIE, ~/.erlang.cookie)');
  const command = controlNodeCommand(target, cookie);
  const child = spawn(command.file, command.args, { env: command.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const node = new LineNode(child);
  try {
    const first = await node.nextLine(boundMs);
    if (first !== 'ready') throw new BrokerError(`control node did not reach ${target}: ${first}`);
  } catch (error) {
    node.close();
    throw error;
  }
  return node;
}

/** The child process behind a ControlNode: lines out, one pending answer at a time. */
class LineNode implements ControlNode {
  private buffered = '';
  private readonly lines: string[] = [];
  private waiting: ((line: string | Error) => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private ended: Error | undefined;
  private readonly onExit = () => this.close();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
        this.deliver(this.buffered.slice(0, end).trim());
        this.buffered = this.buffered.slice(end + 1);
      }
    });
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => this.end(new BrokerError(`control node: ${error.message}`)));
    child.on('exit', (code, signal) => this.end(new BrokerError(`control node exited (${signal ?? code})`)));
    // Never what keeps the harness alive; stopped with it.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    process.once('exit', this.onExit);
  }

  evaluate(expression: string, boundMs: number): Promise<string> {
    if (expression.includes('\n')) return Promise.reject(new BrokerError('a control node expression is one line'));
    const answer = this.queue.then(async () => {
      if (this.ended) throw this.ended;
      this.child.stdin.write(`${expression}\n`);
      const line = await this.nextLine(boundMs);
      if (line.startsWith('ok ')) return line.slice(3);
      throw new BrokerError(`eval on the broker node failed: ${line.replace(/^error /, '')}`);
    });
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  nextLine(boundMs: number): Promise<string> {
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // A node that does not answer is not trusted with the next call either.
        this.close();
        reject(new BrokerError(`control node did not answer within ${boundMs} ms`));
      }, boundMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        if (line instanceof Error) reject(line);
        else resolve(line);
      };
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  close(): void {
    this.end(new BrokerError('control node closed'));
    process.removeListener('exit', this.onExit);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      this.child.kill('SIGKILL');
    }
  }

  private deliver(line: string): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(line);
    else this.lines.push(line);
  }

  private end(error: Error): void {
    this.ended ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(this.ended);
  }
}

let shared: { target: string; node: Promise<LineNode | undefined> } | undefined;
/** Set once a control node failed in this process: rabbitmqctl from then on. */
let failedOnce = false;

/**
 * A RabbitmqctlRunner that sends `eval` to the process's control node for `target` (started on
 * first use) and anything else, or everything once the control node failed, to `fallback`.
 */
export function sharedControlRunner(target: string, fallback: RabbitmqctlRunner): RabbitmqctlRunner {
  return async (args, boundMs) => {
    if (args[0] !== 'eval' || args.length !== 2 || failedOnce) return fallback(args, boundMs);
    if (shared?.target !== target) {
      closeSharedControlNode();
      const node = startControlNode(target).catch(() => undefined) as Promise<LineNode | undefined>;
      shared = { target, node };
    }
    const node = await shared.node;
    if (!node?.alive) {
      failedOnce = true;
      return fallback(args, boundMs);
    }
    try {
      return await node.evaluate(args[1]!, boundMs);
    } catch (error) {
      // Not retried through rabbitmqctl: the call may have acted before the node went silent.
      if (!node.alive) failedOnce = true;
      throw error;
    }
  };
}

/** Stops the process's control node, if one was started (after a benchmark file); safe to call twice. */
export function closeSharedControlNode(): void {
  const held = shared;
  shared = undefined;
  void held?.node.then((node) => node?.close());
}
