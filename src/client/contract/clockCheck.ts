/**
 * A client in another process times its faults, signals and throughput with its own reading of
 * the machine's monotonic clock (CLOCK_MONOTONIC, which Node's process.hrtime.bigint() reads
 * too): every detection time the harness compares with its own rests on the two agreeing. The
 * check asks the program for its clock between two readings of the harness's, several times; an
 * in-process adapter shares the harness's clock by construction.
 */
import { nowNs } from '../../measure/clock';
import type { ClientConnection } from '../api';
import { ContractViolation, formatDuration, needs, type ContractCheck } from './types';

/** A connection whose client reads the clock in a process of its own (a client program). */
interface ClockReader {
  readClockNs(): Promise<bigint>;
}

const hasOwnClock = (connection: ClientConnection): connection is ClientConnection & ClockReader =>
  typeof (connection as Partial<ClockReader>).readClockNs === 'function';

const SAMPLES = 20;

export const clockCheck: ContractCheck = {
  name: 'clock',
  group: 'traffic',
  boundMs: 10_000,
  async run(context) {
    needs(context, 'connect');
    context.step('connecting straight to the broker (adapter.connect)');
    const connection = await context.connect('direct');
    if (!hasOwnClock(connection)) return "the adapter runs in the harness's process: the same clock";
    context.step(`reading the client's clock ${SAMPLES} times between two readings of the harness's`);
    const spansMs: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const beforeNs = nowNs();
      const clientNs = await connection.readClockNs();
      const afterNs = nowNs();
      if (clientNs < beforeNs || clientNs > afterNs)
        throw new ContractViolation(
          `the client read ${clientNs} ns, outside the harness's ${beforeNs}..${afterNs} ns around it (off by ${formatDuration(Number(clientNs < beforeNs ? beforeNs - clientNs : clientNs - afterNs) / 1e6)}): it must read CLOCK_MONOTONIC in ns (Python time.monotonic_ns(), Go runtime nanotime, C clock_gettime), the clock of Node's process.hrtime.bigint()`,
        );
      spansMs.push(Number(afterNs - beforeNs) / 1e6);
    }
    spansMs.sort((a, b) => a - b);
    return `CLOCK_MONOTONIC, as the harness's: ${SAMPLES} of ${SAMPLES} readings inside the harness's (median round trip ${formatDuration(spansMs[SAMPLES >> 1]!)})`;
  },
};
