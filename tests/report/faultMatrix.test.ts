/**
 * The report's fault matrix (pure): one row per fault in the descriptors' order, one column per
 * client configuration, each cell its result's own verdict; the findings with their evidence; how
 * each library tells each signal; which clients noticed a silent peer within their heartbeat's window.
 */
import type { RawResult } from '../../src/results/rawResult';
import { buildFaultMatrix } from '../../src/report/faultMatrix';

interface Cell {
  readonly fault: string;
  readonly client: string;
  readonly profile: 'defaults' | 'normalised';
  readonly cell: string;
  readonly findings?: readonly string[];
  readonly heartbeat?: {
    interval_s: number;
    window_ms: { low: number; high: number };
    slowest_detection_ms: number | null;
    within: boolean;
  };
}

function result(cell: Cell): RawResult {
  return {
    schema_version: 1,
    name: `fault_matrix_${cell.fault}`,
    category: 'faults',
    test_id: `bench_fault_matrix.bench.ts::TestFaultMatrix::test_fault_${cell.fault}`,
    parameters: { threads: 2, client: cell.client, client_profile: cell.profile },
    client: {
      name: cell.client,
      profile: cell.profile,
      library: cell.client,
      version: '1.0.0',
      settings: {},
      signals: {
        channel_closed: `${cell.client}'s channel 'error'`,
        consumer_cancelled: 'none: it swallows it',
        blocked: "'blocked'",
        unblocked: "'unblocked'",
      },
    },
    metrics: {},
    details: {
      kind: 'fault_matrix',
      verdict: { ok: (cell.findings ?? []).length === 0, cell: cell.cell, findings: cell.findings ?? [] },
      ...(cell.heartbeat ? { heartbeat: cell.heartbeat } : {}),
    },
    timestamp: '2026-11-25T10:00:00.000Z',
    fingerprint: 'aaaaaaaa',
  };
}

describe('buildFaultMatrix', () => {
  it('is null without matrix results', () => {
    expect(buildFaultMatrix([])).toBeNull();
  });

  it('puts each result’s own verdict in its cell, faults in the descriptors’ order, clients in the registry’s', () => {
    const section = buildFaultMatrix([
      result({ fault: 'dead_peer', client: 'rabbitmq-client', profile: 'normalised', cell: '✅ 12368 / 190 ms' }),
      result({ fault: 'broker_close', client: 'rabbitmq-client', profile: 'normalised', cell: '✅ 3.3 / 174 ms' }),
      result({ fault: 'broker_close', client: 'amqplib', profile: 'normalised', cell: '✅ 5.1 / 84 ms' }),
      result({
        fault: 'consumer_cancel',
        client: 'amqplib',
        profile: 'normalised',
        cell: '❌ stopped consuming',
        findings: ['thread 0: stopped consuming: nothing delivered (its last event: consumer_cancelled at 3 ms)'],
      }),
    ])!;
    const lines = section.table.split('\n');
    expect(lines[0]).toMatch(/^\| Fault +\| amqplib \(normalised\) +\| rabbitmq-client \(normalised\) +\|$/);
    expect(lines.slice(2).map((line) => line.split('|')[1]!.trim())).toEqual([
      'Broker closes the connection',
      expect.any(String),
      expect.any(String),
    ]);
    expect(section.table).toContain('✅ 5.1 / 84 ms');
    expect(section.table).toContain('❌ stopped consuming');
    expect(section.table).toMatch(/\| —/);
    expect(section.cells).toBe(4);
    expect(section.failed_cells).toBe(1);
    expect(section.findings).toEqual([
      { cell: expect.stringContaining('× amqplib (normalised)'), items: [expect.stringContaining('stopped consuming')] },
    ]);
    expect(section.signals).toEqual([
      expect.stringMatching(/^\*\*amqplib\*\*: channel closed: amqplib's channel 'error'; consumer cancelled: none: it swallows it/),
      expect.any(String),
    ]);
  });

  it('says which clients noticed a silent peer within their heartbeat’s window, and which do not honour it', () => {
    const window = { low: 5000, high: 11000 };
    const section = buildFaultMatrix([
      result({
        fault: 'dead_peer',
        client: 'cloudamqp',
        profile: 'normalised',
        cell: '✅ 5251 / 116 ms',
        heartbeat: { interval_s: 5, window_ms: window, slowest_detection_ms: 5251, within: true },
      }),
      result({
        fault: 'dead_peer',
        client: 'amqplib',
        profile: 'normalised',
        cell: '✅ 14872 / 129 ms',
        heartbeat: { interval_s: 5, window_ms: window, slowest_detection_ms: 14872, within: false },
      }),
      result({ fault: 'dead_peer', client: 'amqplib', profile: 'defaults', cell: '✅ 60000 / 129 ms' }),
    ])!;
    expect(section.heartbeat).toEqual([
      "⚠️ Dead peer (silence) × amqplib (normalised): noticed after 14.9 s; the 5 s heartbeat's window is 5–11 s: it does not honour the heartbeat it was given",
      "✅ Dead peer (silence) × cloudamqp (normalised): noticed after 5.3 s; the 5 s heartbeat's window is 5–11 s",
    ]);
  });
});
