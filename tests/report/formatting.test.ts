/** How the report writes figures, changes, dates and tables (pure). */
import {
  formatDate,
  formatDeltaPercent,
  formatDuration,
  formatNumber,
  formatPValue,
  formatValue,
  humanizeMetricName,
} from '../../src/report/format';
import { markdownTable } from '../../src/report/markdown';
import { estimateTextWidth, vegaTextWidth } from '../../src/report/textWidth';

describe('formatting', () => {
  it.each([
    [52_123.4, 'msg/s', '52,123 msg/s'],
    [12.345, 'ms', '12.3 ms'],
    [2.345, 'ms', '2.35 ms'],
    [0.01234, 'MB/s', '0.0123 MB/s'],
    [0, '%', '0%'],
    [50, 'count', '50'],
    [1536, 'bytes', '1,536 B'],
    [null, 'ms', '—'],
  ])('formatValue(%p, %p) = %p', (value, unit, expected) => {
    expect(formatValue(value, unit)).toBe(expected);
  });

  it('formats changes, p-values, dates, durations and metric names', () => {
    expect([formatDeltaPercent(12.34), formatDeltaPercent(-4.26), formatDeltaPercent(null)]).toEqual(['+12%', '-4.3%', '—']);
    expect([formatPValue(0.0079), formatPValue(0.0004), formatPValue(null)]).toEqual(['p=0.008', 'p<0.001', '—']);
    expect(formatDate('2025-01-31T23:59:59.999Z')).toBe('2025-01-31 23:59:59 UTC');
    expect([formatDuration(850), formatDuration(12_340), formatDuration(252_000), formatDuration(3_720_000)]).toEqual([
      '850 ms',
      '12.3 s',
      '4 min 12 s',
      '1 h 02 min',
    ]);
    expect(formatNumber(-1234.5)).toBe('-1,235');
    expect(humanizeMetricName('error_detection_latency_ms')).toBe('Detection (first thread)');
    expect(humanizeMetricName('rst_error_propagation_latency_ms')).toBe('TCP reset: propagation (all threads)');
    expect(humanizeMetricName('e2e_latency_p99_ms')).toBe('End-to-end latency p99');
    expect(humanizeMetricName('throughput_mb_per_sec')).toBe('Throughput (MB/s)');
  });

  it('measures chart text with Helvetica widths, not 0.8 em a character', () => {
    expect(estimateTextWidth('Hi 10', 10)).toBeCloseTo((722 + 222 + 278 + 556 + 556) / 100, 10);
    expect(vegaTextWidth({ fontSize: 20, fontWeight: 'bold' }, 'i')).toBeCloseTo(0.222 * 20 * 1.08, 10);
  });

  it('builds Markdown tables with escaped cells and aligned numbers', () => {
    expect(
      markdownTable(
        ['Name', 'Value'],
        [
          ['a|b', '1'],
          ['c', '10,000'],
        ],
        [false, true],
      ),
    ).toBe(['| Name | Value  |', '| ---- | -----: |', '| a\\|b | 1      |', '| c    | 10,000 |'].join('\n'));
  });
});
