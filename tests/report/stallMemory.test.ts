/**
 * The report's table of what each configuration took in while its writes were stalled (pure):
 * one row per configuration with stall details, its figures from the cell's own metrics, the
 * memory per MB offered computed, a client program's memory said to be not measured.
 */
import { buildStallMemory } from '../../src/report/stallMemory';
import type { RawResult } from '../../src/results/rawResult';
import type { MatrixDetails } from '../../src/schemaTypes';
import { matrixResult } from './builders';

type Stall = NonNullable<MatrixDetails['threads'][number]['stall']>;

function stall(overrides: Partial<Stall>): Stall {
  return {
    stall_s: 6,
    offered_msg_per_s: 480,
    offered_mb_per_s: 7.9,
    signal: 'none',
    signal_episodes: 0,
    memory_measured: true,
    worker_memory_mb_per_s: 12,
    worker_heap_mb_per_s: 1,
    rss_mb_per_s: 3,
    outstanding_at_removal: 2000,
    outstanding_max: 2100,
    published_during_stall: 2900,
    unsettled_from_stall: 0,
    drain_ms: 2400,
    samples: 24,
    ...overrides,
  };
}

function stalledCell(
  client: string,
  profile: 'defaults' | 'normalised',
  threads: readonly Stall[],
  metrics: Record<string, number | null>,
): RawResult {
  const base = matrixResult({ fault: 'stop_reading', client, profile, cell: '❌ no back-pressure signal' });
  return {
    ...base,
    metrics: Object.fromEntries(Object.entries(metrics).map(([name, value]) => [name, { value, unit: 'MB/s', direction: 'lower' }])),
    details: { ...base.details!, threads: threads.map((one, thread) => ({ thread, stall: one })) },
  };
}

describe('buildStallMemory', () => {
  it('is null when no cell stalled a client’s writes', () => {
    expect(
      buildStallMemory([matrixResult({ fault: 'broker_close', client: 'amqplib', profile: 'defaults', cell: '✅ 3 / 80 ms' })]),
    ).toBeNull();
  });

  it('gives each configuration its figures, the memory per MB offered, and the signals its threads saw', () => {
    const section = buildStallMemory([
      stalledCell('cloudamqp', 'defaults', [stall({}), stall({})], {
        stall_offered_mb_per_s: 8,
        stall_worker_memory_mb_per_s: 16,
        stall_rss_mb_per_s: 4.5,
        stall_outstanding_max: 2192,
        stall_drain_ms: 2403,
      }),
      stalledCell('amqplib', 'defaults', [stall({ signal: 'given' }), stall({ signal: 'given' })], {
        stall_offered_mb_per_s: 4,
        stall_worker_memory_mb_per_s: 6,
        stall_rss_mb_per_s: 1,
        stall_outstanding_max: 900,
        stall_drain_ms: null,
      }),
    ])!;
    expect(section.rows).toBe(2);
    const rows = section.table
      .split('\n')
      .slice(2)
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    // The registry's order: amqplib before cloudamqp.
    expect(rows).toEqual([
      ['amqplib (defaults)', 'given', '4.00', '6.00', '1.50', '1.00', '900', '–'],
      ['cloudamqp (defaults)', 'none', '8.00', '16.00', '2.00', '4.50', '2192', '2403'],
    ]);
  });

  it('says a client program’s memory was not measured rather than showing a growth of nothing', () => {
    const section = buildStallMemory([
      stalledCell('kombu', 'defaults', [stall({ memory_measured: false, worker_memory_mb_per_s: null, rss_mb_per_s: null })], {
        stall_offered_mb_per_s: 6,
        stall_worker_memory_mb_per_s: null,
        stall_rss_mb_per_s: null,
        stall_outstanding_max: 2157,
        stall_drain_ms: 3100,
      }),
    ])!;
    expect(section.table).toContain('not measured (own process)');
    expect(section.table).not.toMatch(/\| 0\.00 /);
  });
});
