/**
 * Unhandled promise rejections and uncaught exceptions of a worker thread, kept as findings
 * instead of killing the thread. A client library that leaves a promise rejecting with nobody
 * listening (seen: @cloudamqp/amqp-client 4.1.1's confirm-mode `basicPublish`, when the socket
 * write fails, orphans its confirm promise, which rejects when the channel closes) would crash an
 * application running with Node's defaults: that is what the finding says, with the error,
 * while the thread goes on measuring what the library does next (no artefacts of a dead thread).
 */
import { describeError } from '../errors';
import { redactText } from '../redact';

export interface UnhandledTrap {
  /** What was trapped, in order, each `kind: error` (redacted). */
  readonly trapped: readonly string[];
  /** Removes the handlers (after a short wait for late socket events, when `settleMs` is given). */
  release(settleMs?: number): Promise<void>;
}

/** Starts trapping in this thread; always `release()` it (in a finally). */
export function trapUnhandled(): UnhandledTrap {
  const trapped: string[] = [];
  const onRejection = (reason: unknown) => trapped.push(`unhandled rejection: ${redactText(describeError(reason))}`);
  const onException = (error: unknown) => trapped.push(`uncaught exception: ${redactText(describeError(error))}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    trapped,
    async release(settleMs = 0) {
      if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

/** The finding a report shows for trapped errors of one thread, or undefined when there were none. */
export function unhandledFinding(thread: string, trapped: readonly string[]): string | undefined {
  if (trapped.length === 0) return undefined;
  return `${thread}: ${trapped.length} error(s) nobody handled inside the client (an application on Node's defaults would have crashed): ${trapped.slice(0, 3).join('; ')}`;
}
