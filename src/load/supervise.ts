/**
 * The supervisor of each client connection of a load run: recovery is the client's own, and the
 * supervisor only asks for it (`ensureConnected`) and times each fault from the client's report
 * to the moment the connection was back.
 */
import { describeError } from '../errors';
import type { ClientConnection } from '../client/api';
import { sleep } from '../measure/clock';

/** Bound of one `ensureConnected` call; the supervisor calls again until the run stops. */
const ENSURE_BOUND_MS = 30_000;
/** Pause before asking again when the client still says up from before a fault it reported. */
const STALE_UP_RETRY_MS = 20;

/** One fault of a connection: when the client reported it and when it was back (null: not back by the end). */
export interface ConnectionFaultSpan {
  readonly detectedNs: bigint;
  backNs: bigint | null;
  readonly kind: string;
}

/**
 * Watches a connection: after each fault, calls `ensureConnected` until it is back or the run
 * stops (the harness loop's reconnect for `amqplib`; a library's own recovery is only waited for).
 * A fault reported while an earlier one is still being waited out is closed by the same wait.
 */
export function superviseConnection(
  connection: ClientConnection,
  log: (line: string) => void,
): { readonly faults: readonly ConnectionFaultSpan[]; stop(): void } {
  const faults: ConnectionFaultSpan[] = [];
  let stopped = false;
  let recovering = false;
  const recover = async () => {
    if (recovering) return;
    recovering = true;
    const open = () => faults.filter((fault) => fault.backNs === null);
    while (!stopped && open().length > 0) {
      try {
        const back = await connection.ensureConnected(ENSURE_BOUND_MS);
        // Every fault reported by then is closed by this return, except one reported after the
        // connection was already back: that one waits for the next (after a moment, should the
        // client not have seen it down yet).
        const closing = open().filter((fault) => back.connectedNs >= fault.detectedNs);
        for (const fault of closing) fault.backNs = back.connectedNs;
        if (closing.length === 0) await sleep(STALE_UP_RETRY_MS);
      } catch (error) {
        if (!stopped) log(`load: ${connection.info.name} not back yet: ${describeError(error)}`);
      }
    }
    recovering = false;
  };
  const unsubscribe = connection.onFault((fault) => {
    faults.push({ detectedNs: fault.detectedNs, backNs: null, kind: fault.kind });
    void recover();
  });
  return {
    faults,
    stop() {
      stopped = true;
      unsubscribe();
    },
  };
}
