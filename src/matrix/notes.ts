/** The notes of a fault-matrix result (pure): what each figure is timed from and against what, in words. */
import type { FaultReference, RemovalReference } from '../faults/moments';
import type { MatrixThread as MatrixThreadDetail } from '../schemaTypes';
import { seconds } from './findings';
import type { HeartbeatJudgement } from './heartbeat';
import type { MatrixOutcome } from './scenario';

export interface NotesInput {
  readonly outcome: MatrixOutcome;
  readonly reference: FaultReference;
  readonly removal: RemovalReference | null;
  readonly heartbeat: HeartbeatJudgement | undefined;
  /** The proxy was real Toxiproxy and the fault asks of the embedded proxy what it does not do. */
  readonly throughToxiproxy: string | null;
  readonly spread: string | null;
  readonly threads: readonly MatrixThreadDetail[];
}

/** What the client did while the fault held, and how the broker answered (its re-consumes and their 404s), from the proxy's timeline. */
function whileHeld(threads: readonly MatrixThreadDetail[]): string[] {
  const said = threads.flatMap((thread) => {
    const frames = thread.frames_during_fault ?? [];
    if (!frames.some((frame) => frame.from === 'client')) return [];
    const each = frames.map(
      (frame) =>
        `${frame.from} ${frame.method}${frame.reply_code ? ` ${frame.reply_code}` : ''} ×${frame.count} (first at ${frame.first_at_ms} ms${frame.reply_text ? `: ${frame.reply_text}` : ''})`,
    );
    return [`thread ${thread.thread}: ${each.join(', ')}`];
  });
  return said.length === 0 ? [] : [`while the fault held, on each thread's connections (the proxy's timeline): ${said.join('; ')}`];
}

export function matrixNotes(input: NotesInput): string[] {
  const { outcome, reference, removal, heartbeat } = input;
  const { options } = outcome;
  const definition = outcome.fault.definition;
  const exact = reference.exact ? ' (exact), per thread from the moment the fault acted on its own connection' : ' (an upper bound)';
  const removedFrom = removal ? `${removal.description}${removal.exact ? ' (exact)' : ' (an upper bound)'}` : 'the fault was never removed';
  return [
    `detection timed from the ${reference.description}${exact}; recovery: the first of the thread's own messages published after the fault's removal delivered to its own consumer, timed from the removal as the broker or proxy saw it: ${removedFrom}`,
    `${options.threads} threads, each one connection of the client publishing with confirms (window ${options.confirmWindow}, one publish every ${options.publishIntervalMs} ms) into its own queue and consuming it (manual ack, prefetch ${options.prefetch}); the harness's probes (straight to each queue after the removal) tell a consumer that works from a publisher that does not`,
    `every publish ends in one class, fixed ${seconds(options.settleMs)} after publishing stopped and before anything is closed: confirmed, nacked, rejected (the library's error), or hung (not settled by then); confirmed ones are then delivered, still queued, or lost${definition.destroysMessages ? ` (the fault's own loss counted apart: ${definition.destroysMessages})` : ''}`,
    ...(options.holdMs > 0
      ? [
          `the fault held ${seconds(options.holdMs)} at least before its removal (longer while a thread had not noticed it, up to the detection bound)`,
        ]
      : []),
    ...(options.heartbeatIntervalMs !== null
      ? [
          `the threads' connections opened staggered over one ${seconds(options.heartbeatIntervalMs)} heartbeat interval, and the silence began when thread 0 was at ${(options.threads - 0.5) / options.threads} of its interval: each thread met it at another phase (measured per thread from its connection's opening)`,
        ]
      : []),
    ...(options.stall
      ? [
          `the broker stopped reading: each thread kept publishing ${options.messageBytes}-byte messages every ${options.publishIntervalMs} ms, open loop while the stall held (at most ${options.confirmWindow} awaiting their confirm before and after it, so the library's buffers were empty when it began), ignoring any back-pressure signal as an application that does not check it would; memory sampled every 250 ms in each thread's worker (V8 heap plus external memory: the Buffers the library and its socket hold) and the process's RSS, growth as the least-squares slope while the stall held`,
        ]
      : []),
    ...(input.spread ? [input.spread] : []),
    ...whileHeld(input.threads),
    ...(input.throughToxiproxy ? [input.throughToxiproxy] : []),
    ...(heartbeat?.summary ? [`heartbeat ${heartbeat.interval_s} s: ${heartbeat.summary}`] : []),
  ];
}
