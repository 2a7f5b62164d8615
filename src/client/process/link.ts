/**
 * One running client program and the harness's side of its line protocol: numbered requests and
 * their replies, each request bounded; events handed on as they come. A program that misbehaves
 * — exits, prints what is not the protocol, answers a request late or never — is ended with its
 * whole process group at once, every pending request fails with one line saying what it did and
 * what it last printed, and that line is written to stderr once, so a run never hangs on it.
 */
import { BenchError, TimeoutError } from '../../errors';
import { startChildProgram, type ChildProgram } from '../../io/childProgram';
import { packageRoot } from '../../packageRoot';
import type { Command, Event, Failure, Output, Reply } from '../../schemaTypes/clientProtocol';
import {
  NotTheProtocol,
  isEvent,
  isFailure,
  isHello,
  parseOutput,
  SUPPORTED_PROTOCOLS,
  unsupportedProtocol,
  unsupportedVersionOf,
} from './wire';

/** A command as the driver writes it (the link numbers it). */
export type Request = Command extends infer C ? (C extends { id: number } ? Omit<C, 'id'> : never) : never;
/** A command that has no reply (acks). */
export type Notice = Exclude<Command, { id: number }>;

/** A request failed because the program said so (`code`), not because it misbehaved. */
export class ProgramFailure extends BenchError {
  constructor(readonly failure: Failure) {
    super(failure.code === 'timeout' ? 'TIMEOUT' : 'CLIENT_FAULT', failure.error);
  }
}

interface Pending {
  readonly op: string;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export interface LinkHandlers {
  readonly onEvent: (event: Event) => void;
  /** The program ended, on its own or ended by the link: `error` says why (undefined after `stop`). */
  readonly onEnd: (error: Error | undefined) => void;
}

/** Bound on the program's start-up: its runtime loading, its library imported, `hello` printed. */
export const HELLO_BOUND_MS = 20_000;

export class ProgramLink {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ended: Error | undefined;
  private stopping = false;
  private hello: ((error?: Error) => void) | undefined;
  private readonly child: ChildProgram;
  private spoken = 0;

  private constructor(
    readonly name: string,
    command: readonly string[],
    private readonly handlers: LinkHandlers,
  ) {
    this.child = startChildProgram(name, command, {
      cwd: packageRoot(),
      onLine: (line) => this.onLine(line),
      onExit: (how) => this.onExit(how),
    });
  }

  /** Starts the program and waits for its `hello`. @throws BenchError saying why it did not start */
  static async start(name: string, command: readonly string[], handlers: LinkHandlers): Promise<ProgramLink> {
    const link = new ProgramLink(name, command, handlers);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => link.end(new TimeoutError(`${name} printed no hello within ${HELLO_BOUND_MS} ms`)), HELLO_BOUND_MS);
      link.hello = (error) => {
        clearTimeout(timer);
        link.hello = undefined;
        if (error) reject(error);
        else resolve();
      };
    });
    return link;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The protocol version the program said in its hello (0 before it). */
  get protocol(): number {
    return this.spoken;
  }

  /** Why the program is gone, once it is. */
  get endedWith(): Error | undefined {
    return this.ended;
  }

  /**
   * Sends `command` and resolves with its reply. A reply that does not come within `boundMs` ends
   * the program. @throws ProgramFailure (the program's own `ok: false`) or the link's end
   */
  request(command: Request, boundMs: number): Promise<Reply> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => this.end(new TimeoutError(`${this.name} did not answer ${command.op} within ${boundMs} ms`)), boundMs);
      this.pending.set(id, { op: command.op, resolve, reject, timer });
      this.child.send(JSON.stringify({ ...command, id }));
    });
  }

  /** Sends a command that has no reply. */
  notify(notice: Notice): void {
    if (!this.ended) this.child.send(JSON.stringify(notice));
  }

  /** Ends the program politely (end of stdin), then its group by force after `graceMs`. Safe twice. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    await this.child.stop(graceMs);
  }

  /** Ends the program at once, failing everything pending with `error` (said once on stderr). */
  end(error: Error): void {
    if (this.ended) return;
    const said = `${error.message} (last output: ${this.child.lastOutput() || 'none'})`;
    this.ended = error instanceof BenchError ? new BenchError(error.code, said) : new BenchError('WORKER_FAILED', said);
    process.stderr.write(`amqp-bench: client program ${this.name} (pid ${this.child.pid ?? '?'}) ended: ${said}\n`);
    this.child.kill();
    this.failPending();
  }

  private failPending(): void {
    const error = this.ended ?? new BenchError('WORKER_FAILED', `${this.name} was stopped`);
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
    this.hello?.(error);
  }

  private onLine(line: string): void {
    if (this.ended) return;
    let output: Output;
    try {
      output = parseOutput(line);
    } catch (error) {
      if (!(error instanceof NotTheProtocol)) throw error;
      const versionSaid = this.hello ? unsupportedVersionOf(line) : undefined;
      if (versionSaid !== undefined) return this.end(new BenchError('WORKER_FAILED', unsupportedProtocol(this.name, versionSaid)));
      return this.end(new BenchError('WORKER_FAILED', `${this.name} ${error.message}`));
    }
    if (isHello(output)) {
      // The schema admits only the versions spoken here; checked again so the two cannot drift apart.
      if (!SUPPORTED_PROTOCOLS.includes(output.protocol))
        return this.end(new BenchError('WORKER_FAILED', unsupportedProtocol(this.name, output.protocol)));
      this.spoken = output.protocol;
      this.hello?.();
      return;
    }
    if (isEvent(output)) return this.handlers.onEvent(output);
    const pending = this.pending.get(output.re);
    if (!pending)
      return this.end(
        new BenchError('WORKER_FAILED', `${this.name} answered request ${output.re}, which it was never sent (or answered twice)`),
      );
    this.pending.delete(output.re);
    clearTimeout(pending.timer);
    if (isFailure(output)) pending.reject(new ProgramFailure(output));
    else pending.resolve(output);
  }

  private onExit(how: string): void {
    if (!this.ended) {
      if (this.stopping && this.pending.size === 0) this.ended = new BenchError('WORKER_FAILED', `${this.name} was stopped`);
      else this.end(new BenchError('WORKER_FAILED', `${this.name} exited (${how})`));
    }
    this.failPending();
    this.handlers.onEnd(this.stopping ? undefined : this.ended);
  }
}
