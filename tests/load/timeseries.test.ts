/** The time series CSV: the header names the columns the issue asks for, one line per point. */
import { TIME_SERIES_COLUMNS, timeSeriesCsv, type TimeSeriesPoint } from '../../src/load/timeseries';

const point: TimeSeriesPoint = {
  t_s: 1,
  published: 2000,
  confirmed: 1990,
  consumed: 1985,
  confirm_p50_ms: 0.5,
  confirm_p99_ms: 2.25,
  e2e_p50_ms: 0.6,
  e2e_p99_ms: null,
  schedule_lag_p99_ms: 0.1,
  outstanding_confirms: 10,
  connections_up: 2,
  fault_state: 'latency:200ms',
};

describe('time series CSV', () => {
  test('header and columns', () => {
    expect(TIME_SERIES_COLUMNS).toEqual(
      expect.arrayContaining([
        'published',
        'confirmed',
        'consumed',
        'confirm_p50_ms',
        'confirm_p99_ms',
        'e2e_p50_ms',
        'e2e_p99_ms',
        'outstanding_confirms',
        'connections_up',
        'fault_state',
      ]),
    );
    const [header, line, end] = timeSeriesCsv([point]).split('\n');
    expect(header).toBe(
      't_s,published,confirmed,consumed,confirm_p50_ms,confirm_p99_ms,e2e_p50_ms,e2e_p99_ms,schedule_lag_p99_ms,outstanding_confirms,connections_up,fault_state',
    );
    expect(line).toBe('1,2000,1990,1985,0.5,2.25,0.6,,0.1,10,2,latency:200ms');
    expect(end).toBe('');
  });

  test('a fault state with a comma is quoted', () => {
    expect(
      timeSeriesCsv([{ ...point, fault_state: 'a,b' }])
        .split('\n')[1]!
        .endsWith(',"a,b"'),
    ).toBe(true);
  });
});
