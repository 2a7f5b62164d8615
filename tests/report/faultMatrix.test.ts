/**
 * The report's fault matrix (pure): one row per fault in the descriptors' order, one column per
 * client configuration, each cell its result's own verdict; the findings with their evidence; how
 * each library tells each signal; which clients noticed a silent peer within their heartbeat's window.
 */
import { judgeHeartbeat } from '../../src/matrix/heartbeat';
import { buildFaultMatrix } from '../../src/report/faultMatrix';
import type { MatrixThread } from '../../src/schemaTypes';
import { matrixResult } from './builders';

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
    expect(section.signals).toEqual([
      expect.stringMatching(/^\*\*amqplib\*\*: channel closed: amqplib's channel 'error'; consumer cancelled: none: it swallows it/),
      expect.any(String),
    ]);
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
    expect(section.heartbeat).toEqual([
      expect.stringMatching(
        /^✅ Dead peer \(silence\) × amqplib \(normalised\): noticed after 2\.12–2\.9 intervals \(10\.6 s–14\.5 s, median 12\.5 s\) over 3 phase\(s\) \(phase of the interval → intervals until noticed: 0\.10 → 2\.90, 0\.50 → 2\.50, 0\.90 → 2\.12\); the protocol's window at 5 s is 9\.9 s–16\.0 s \(two to three intervals\): within it$/,
      ),
      expect.stringMatching(
        /^⚠️ Dead peer \(silence\) × cloudamqp \(normalised\): noticed after 1\.05–1\.05 intervals .*earlier than two intervals.*How it notices: its socket idle timeout$/,
      ),
    ]);
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
