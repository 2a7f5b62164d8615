/**
 * The report's fault matrix (pure): one row per fault in the descriptors' order, one column per
 * client configuration, each cell its result's own verdict; the findings with their evidence; how
 * each library tells each signal; which clients noticed a silent peer within their heartbeat's window.
 */
import { judgeHeartbeat } from '../../src/matrix/heartbeat';
import { buildFaultMatrix } from '../../src/report/faultMatrix';
import type { MatrixThread } from '../../src/schemaTypes';
import { matrixResult } from './builders';
import { figuresOf } from './support/reading';

describe('buildFaultMatrix', () => {
  it('is null without matrix results', () => {
    expect(buildFaultMatrix([])).toBeNull();
  });

  it('puts each result’s own verdict in its cell, faults in the descriptors’ order, clients in the registry’s', () => {
    const section = buildFaultMatrix([
      matrixResult({ fault: 'dead_peer', client: 'rabbitmq-client', profile: 'normalised', cell: '✅ 12368 / 190 ms' }),
      matrixResult({ fault: 'broker_close', client: 'rabbitmq-client', profile: 'normalised', cell: '✅ 3.3 / 174 ms' }),
      matrixResult({ fault: 'broker_close', client: 'amqplib', profile: 'normalised', cell: '✅ 5.1 / 84 ms' }),
      matrixResult({
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
      'Dead peer (silence)',
      'Broker closes the connection',
      'Server cancels the consumer',
    ]);
    expect(section.table).toContain('✅ 5.1 / 84 ms');
    expect(section.table).toContain('❌ stopped consuming');
    expect(section.table).toMatch(/\| —/);
    expect(section.cells).toBe(4);
    expect(section.failed_cells).toBe(1);
    expect(section.findings).toEqual([
      { cell: expect.stringContaining('× amqplib (normalised)'), items: [expect.stringContaining('stopped consuming')] },
    ]);
    // One line per client, naming each signal its adapter describes, by kind.
    expect(section.signals).toHaveLength(2);
    const [amqplib] = section.signals;
    expect(amqplib!.startsWith('**amqplib**: ')).toBe(true);
    const kinds = amqplib!
      .slice('**amqplib**: '.length)
      .split('; ')
      .map((said) => said.slice(0, said.indexOf(': ')));
    expect(kinds).toEqual(['channel closed', 'consumer cancelled', 'blocked', 'unblocked']);
  });

  it('lists a cell the harness could not judge apart: neither a finding nor ✅', () => {
    const section = buildFaultMatrix([
      matrixResult({
        fault: 'alarm',
        client: 'amqplib',
        profile: 'normalised',
        cell: '⚠ harness: the fault was not injected',
        harness: ['the cell stopped early: not on a node of the harness’s own', 'the fault was not injected'],
      }),
      matrixResult({ fault: 'broker_close', client: 'amqplib', profile: 'normalised', cell: '✅ 5.1 / 84 ms' }),
    ])!;
    expect(section.table).toContain('⚠ harness: the fault was not injected');
    expect([section.failed_cells, section.harness_cells]).toEqual([0, 1]);
    expect(section.findings).toEqual([]);
    expect(section.harness).toEqual([
      {
        cell: expect.stringContaining('× amqplib (normalised)'),
        items: [expect.stringContaining('stopped early'), 'the fault was not injected'],
      },
    ]);
  });

  it('judges a silence as the protocol says: two to three intervals over the phases met, earlier is not honoured either', () => {
    const thread = (index: number, detectionMs: number, phase: number): MatrixThread =>
      ({
        thread: index,
        detection_ms: detectionMs,
        detected_by: 'heartbeat',
        noticed_as: 'fault',
        detected_after_removal: false,
        heartbeat_phase: phase,
      }) as MatrixThread;
    const amqplib = judgeHeartbeat('heartbeat', 5, [thread(0, 10_600, 0.9), thread(1, 12_500, 0.5), thread(2, 14_500, 0.1)]);
    const cloudamqp = judgeHeartbeat('heartbeat', 5, [thread(0, 5251, 0.9), thread(1, 5260, 0.1)], 'its socket idle timeout');
    const section = buildFaultMatrix([
      matrixResult({ fault: 'dead_peer', client: 'cloudamqp', profile: 'normalised', cell: '✅ 5260 / 116 ms', heartbeat: cloudamqp }),
      matrixResult({ fault: 'dead_peer', client: 'amqplib', profile: 'normalised', cell: '✅ 14500 / 129 ms', heartbeat: amqplib }),
      matrixResult({ fault: 'dead_peer', client: 'amqplib', profile: 'defaults', cell: '✅ 60000 / 129 ms' }),
    ])!;
    // Only the configurations with a judged heartbeat, in the registry's order.
    expect(section.heartbeat).toHaveLength(2);
    const [within, early] = section.heartbeat;
    // ✅: the range in intervals and in seconds, the median, the phases met and each one's intervals, the 5 s window.
    expect(within).toMatch(/^✅ Dead peer \(silence\) × amqplib \(normalised\): .*: within it$/);
    expect(figuresOf(within!)).toEqual([
      '2.12–2.9 intervals',
      '10.6 s–14.5 s',
      '12.5 s',
      '3 phase(s)',
      ...['0.10', '2.90', '0.50', '2.50', '0.90', '2.12'],
      '5 s',
      '9.9 s–16.0 s',
    ]);
    // ⚠️: noticed before two intervals, with how the library notices.
    expect(early).toMatch(/^⚠️ Dead peer \(silence\) × cloudamqp \(normalised\): .*: earlier than two intervals/);
    expect(figuresOf(early!)[0]).toBe('1.05–1.05 intervals');
    expect(early!.endsWith(': its socket idle timeout')).toBe(true);
  });

  it('judges a thread told by the broker (not by its own heartbeat) as not noticed by itself', () => {
    const judged = judgeHeartbeat('heartbeat', 5, [
      {
        thread: 0,
        detection_ms: 12_000,
        detected_by: 'closed',
        noticed_as: 'told_by_broker',
        detected_after_removal: false,
      } as MatrixThread,
    ])!;
    expect([judged.judgement, judged.within, judged.slowest_detection_ms]).toEqual(['not_by_itself', false, null]);
  });
});
