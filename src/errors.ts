/**
 * One error module for the harness. Every error has a stable `code` (for programs) and a
 * message that says what to do (for people); the original failure travels in `cause`.
 */

/** Stable error codes, one per family. */
export type BenchErrorCode =
  | 'CONFIG_INVALID'
  | 'BROKER_UNREACHABLE'
  | 'PROXY_API'
  | 'PROXY_UNREACHABLE'
  | 'WORKER_FAILED'
  | 'RESULT_INVALID'
  | 'MARKER_EXPRESSION'
  | 'CLIENT_FAULT'
  | 'TIMEOUT'
  /** A build of a paired run (`bench ab`) could not be checked out, installed or run. */
  | 'BUILD_FAILED';

/** Where an error keeps the names of its classes (a global symbol: every copy of this module shares it). */
const ERROR_CLASSES = Symbol.for('amqp-bench.errorClasses');

export class BenchError extends Error {
  readonly code: BenchErrorCode;

  constructor(code: BenchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    const classes: string[] = [];
    for (let each: unknown = new.target; typeof each === 'function' && each !== Error; each = Object.getPrototypeOf(each))
      classes.push((each as { name: string }).name);
    Object.defineProperty(this, ERROR_CLASSES, { value: classes });
  }

  /**
   * `instanceof` by class name, not by identity: an adapter from the user's project loads its own
   * copy of the public API (`amqp-bench`), and the ClientFaultError it throws must still be one
   * to the harness's copy of this module (a worker thread has a bundled copy of its own, too).
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const classes = typeof value === 'object' && value !== null ? (value as Record<symbol, unknown>)[ERROR_CLASSES] : undefined;
    return Array.isArray(classes) ? classes.includes(this.name) : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** A setting (environment variable or CLI option) has a value that cannot be used. */
export class ConfigError extends BenchError {
  readonly variable: string;

  constructor(variable: string, expected: string, got: string | undefined) {
    super('CONFIG_INVALID', `${variable} must be ${expected}; got ${JSON.stringify(got ?? '')}`);
    this.variable = variable;
  }
}

/**
 * A workload file (`bench load workloads/x.yaml`) that cannot be used: the message names the file,
 * the line and the field (`workloads/x.yaml line 7: rate: must be ≥ 0`).
 */
export class WorkloadFileError extends BenchError {
  readonly file: string;
  readonly line: number | null;
  readonly field: string;

  constructor(file: string, line: number | null, field: string, problem: string) {
    super('CONFIG_INVALID', `${file}${line === null ? '' : ` line ${line}`}: ${field === '' ? '' : `${field}: `}${problem}`);
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

/** RabbitMQ did not answer (or refused us). */
export class BrokerError extends BenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BROKER_UNREACHABLE', message, options);
  }
}

/** The fault proxy's API answered with an error, or did not answer. */
export class ProxyError extends BenchError {
  readonly status: number | undefined;

  constructor(code: 'PROXY_API' | 'PROXY_UNREACHABLE', message: string, status?: number, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

/** A worker thread failed or never reported back. */
export class WorkerError extends BenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('WORKER_FAILED', message, options);
  }
}

/** A deadline passed. */
export class TimeoutError extends BenchError {
  constructor(message: string) {
    super('TIMEOUT', message);
  }
}

/**
 * A wait of the harness's own (a thread waiting for its main thread: a round to start, the stop
 * signal) passed its bound. A harness failure, never a verdict on the client under test: a thread
 * reports it apart from the client's errors.
 */
export class HarnessBoundError extends TimeoutError {}

/**
 * A marker expression (BENCH_MARKERS, the run script's `-m`) cannot be parsed. The one-line
 * message names the expression, the 1-based column and what was expected there; `pointer`
 * shows the expression with a caret under that column, for a CLI to print below it.
 */
export class MarkerExpressionError extends BenchError {
  readonly expression: string;
  /** 0-based offset into `expression` where the problem was found. */
  readonly position: number;
  /** What went wrong there, e.g. `expected ")" to close "(" at column 1, found the end of the expression`. */
  readonly problem: string;

  constructor(expression: string, position: number, problem: string, origin?: string) {
    const from = origin === undefined ? '' : ` (from ${origin})`;
    super('MARKER_EXPRESSION', `Invalid marker expression ${JSON.stringify(expression)}${from} at column ${position + 1}: ${problem}.`);
    this.expression = expression;
    this.position = position;
    this.problem = problem;
  }

  /** Two lines: the expression, then a caret under the offending column. */
  get pointer(): string {
    return `${this.expression}\n${' '.repeat(this.position)}^`;
  }
}

/** Turns anything thrown into a one-line description, for logs and result files. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof BenchError) return error.message;
    return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
