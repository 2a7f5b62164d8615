/** The clients side-by-side chart: a panel per figure, a bar per client configuration. */
import { clientChartRows, clientsSideBySide } from '../../src/report/clientsChart';
import { renderSvg } from '../../src/report/charts';
import { clientRun, metric } from './builders';

describe('the clients side-by-side chart', () => {
  it('is left out when the run measured one client configuration', () => {
    expect(clientsSideBySide(clientRun('amqplib', 'defaults'))).toBeUndefined();
  });

  it('draws a panel per figure with a bar per client, a label where a client has no value, within 640 px', async () => {
    const results = [
      ...clientRun('amqplib', 'defaults'),
      ...clientRun('rabbitmq-client', 'defaults').map((result) =>
        result.name === 'recovery_after_reset_peer'
          ? { ...result, metrics: { ...result.metrics, recovery_after_removal_ms: metric(null, 'ms') } }
          : result,
      ),
    ];
    // The longest label there is, for the width.
    results.push(...clientRun('amqp-connection-manager', 'normalised'));
    const rows = clientChartRows(results);
    expect(rows.filter((row) => row.panel.startsWith('RST recovery after removal'))).toEqual([
      expect.objectContaining({ client: 'amqplib (defaults)', value: 180, label: '180 ms' }),
      expect.objectContaining({ client: 'amqp-connection-manager (normalised)', value: 180, label: '180 ms' }),
      expect.objectContaining({ client: 'rabbitmq-client (defaults)', value: null, label: 'did not recover' }),
    ]);
    expect(new Set(rows.map((row) => row.panel)).size).toBe(9);
    const chart = clientsSideBySide(results)!;
    const svg = await renderSvg(chart.spec);
    const width = Number(/^<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1]);
    expect(width).toBeGreaterThan(300);
    expect(width).toBeLessThanOrEqual(640);
    expect(svg).not.toMatch(/NaN|undefined/);
    // Axis ticks as plain numbers: never an exponent (`1e+1`) or an SI prefix on milliseconds.
    expect(svg).not.toMatch(/>\d(\.\d+)?e[+-]\d+</);
    expect(svg).toContain('did not recover');
  }, 30_000);
});
