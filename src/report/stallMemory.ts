/**
 * What each client configuration took in while its writes were stalled (pure): one row per
 * configuration whose matrix cell stalled the client's writes (the broker stopped reading), with
 * the rate the threads offered, how fast the library's memory grew meanwhile, how many publishes
 * waited for their confirm at the removal and how long they took to settle after it. An
 * application that ignores the library's back-pressure signal (or whose library has none) grows
 * its memory at this rate for as long as a broker stops reading, so the growth is read beside the
 * offered rate: the ratio says how many bytes of memory each byte offered cost.
 *
 * The cells' own figures (src/matrix/metrics.ts: the median thread's rates, the most outstanding,
 * the slowest drain); the stall's details say whether the library has a signal and used it.
 * Nothing here names a fault: a cell is in the table when its threads have stall details.
 */
import type { RawResult } from '../results/rawResult';
import type { MatrixDetails } from '../schemaTypes';
import { configurationOf, clientConfigurations } from './clientFigures';
import { markdownTable } from './markdown';

export interface StallMemorySection {
  readonly table: string;
  readonly rows: number;
  readonly notes: readonly string[];
}

type Stall = NonNullable<MatrixDetails['threads'][number]['stall']>;

const SIGNAL_WORDS: Readonly<Record<Stall['signal'], string>> = {
  given: 'given',
  on_already: 'on already before',
  not_given: 'not given',
  none: 'none',
};

function stallsOf(result: RawResult): readonly Stall[] {
  if (result.details?.kind !== 'fault_matrix') return [];
  const details = result.details as unknown as MatrixDetails;
  return (details.threads ?? []).flatMap((thread) => (thread.stall ? [thread.stall] : []));
}

const figure = (result: RawResult, metric: string): number | null => result.metrics[metric]?.value ?? null;
const fixed = (value: number | null, digits: number): string => (value === null ? '–' : value.toFixed(digits));

/** A client program's memory: its own process's RSS, which also holds the commands queued for the library (an upper bound). */
const programCell = (program: number | null): string =>
  program === null ? 'not measured (own process)' : `≤ ${program.toFixed(2)} (program RSS)`;

/** The table, or null when no result stalled a client's writes. */
export function buildStallMemory(results: readonly RawResult[]): StallMemorySection | null {
  const cells = results.filter((result) => stallsOf(result).length > 0);
  if (cells.length === 0) return null;
  // The latest cell of a configuration speaks for it.
  const latest = new Map<string, RawResult>();
  for (const result of [...cells].sort((a, b) => a.timestamp.localeCompare(b.timestamp))) {
    const configuration = configurationOf(result);
    if (configuration) latest.set(configuration.label, result);
  }
  const rows = clientConfigurations(cells).flatMap((configuration) => {
    const result = latest.get(configuration.label);
    if (!result) return [];
    const stalls = stallsOf(result);
    const signals = [...new Set(stalls.map((stall) => SIGNAL_WORDS[stall.signal]))].join(', ');
    const offered = figure(result, 'stall_offered_mb_per_s');
    const worker = figure(result, 'stall_worker_memory_mb_per_s');
    const measured = stalls.every((stall) => stall.memory_measured);
    const program = figure(result, 'stall_program_rss_mb_per_s');
    const perOffered = worker !== null && offered !== null && offered > 0 ? fixed(worker / offered, 2) : '–';
    return [
      [
        configuration.label,
        signals,
        fixed(offered, 2),
        measured ? fixed(worker, 2) : programCell(program),
        measured ? perOffered : '–',
        measured ? fixed(figure(result, 'stall_rss_mb_per_s'), 2) : '–',
        fixed(figure(result, 'stall_outstanding_max'), 0),
        fixed(figure(result, 'stall_drain_ms'), 0),
      ],
    ];
  });
  return {
    rows: rows.length,
    table: markdownTable(
      [
        'Client',
        'Back-pressure signal',
        'Offered (MB/s)',
        'Library memory (MB/s)',
        'Memory per MB offered',
        'Process RSS (MB/s)',
        'Outstanding at removal',
        'Drain after removal (ms)',
      ],
      rows,
      [false, false, true, true, true, true, true, true],
    ),
    notes: [
      'Offered: message bodies the threads published while the stall held (MB = 10^6 bytes per second), open loop, ignoring any back-pressure signal as an application that does not check it would; the median thread.',
      'Library memory: growth of the worker thread the library runs in (its V8 heap plus its external memory, where queued Buffers live), the least-squares slope over samples every 250 ms while the stall held; the median thread. A client program in another language runs in its own process: its resident set instead (read from /proc), which also holds its runtime and the protocol’s commands queued for the library, so an upper bound on the library’s (≤).',
      'Memory per MB offered: the two divided; above 1 when the library holds more than one copy of what it was handed (encoded frames beside the bodies).',
      'Process RSS: the whole process (every thread of the cell and the harness), so an upper bound on what the library took; the median thread’s sample series.',
      'Outstanding at removal: the most publishes of one thread awaiting their confirm at the last sample before the removal. Drain: from the removal until the last publish made during the stall settled, the slowest thread; – when one never settled (see the matrix’s findings).',
    ],
  };
}
