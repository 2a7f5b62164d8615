/**
 * `bench faults --repeat N` (pure parts): the matrix cells of a run read from its raw results, every
 * cell's verdict side by side, and the cells whose verdict class changed between runs; bad options
 * refused with what to do.
 */
import { compareRuns, matrixCells, resolveFaultsOptions, type MatrixCellRecord } from '../../src/cli/faultsCommand';
import type { RawResult } from '../../src/results/rawResult';

const cell = (fault: string, configuration: string, text: string): MatrixCellRecord => ({
  fault: `fault_matrix_${fault}`,
  configuration,
  verdict: { ok: text.startsWith('✅'), cell: text, findings: [] },
});

describe('bench faults', () => {
  it('names the cells whose verdict class changed, not those whose figures moved', () => {
    const { table, changed } = compareRuns([
      [cell('dead_peer', 'amqplib (normalised)', '✅ 12500 / 190 ms'), cell('consumer_cancel', 'amqplib (normalised)', '✅ 2 / 5000 ms')],
      [
        cell('dead_peer', 'amqplib (normalised)', '✅ 10800 / 205 ms'),
        cell('consumer_cancel', 'amqplib (normalised)', '✅ not told / 43 ms'),
      ],
      [cell('dead_peer', 'amqplib (normalised)', '✅ 14100 / 188 ms')],
    ]);
    expect(changed).toEqual(['Server cancels the consumer × amqplib (normalised) (✅ N / N ms | ✅ not told / N ms | missing)']);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^\| Cell +\| run 1 +\| run 2 +\| run 3 +\|$/);
    expect(lines[2]).toMatch(
      /^\| Dead peer \(silence\) × amqplib \(normalised\) +\| ✅ 12500 \/ 190 ms +\| ✅ 10800 \/ 205 ms +\| ✅ 14100 \/ 188 ms +\|$/,
    );
    expect(lines[3]).toMatch(/^\| ≠ Server cancels the consumer × amqplib \(normalised\) .*\| — +\|$/);
  });

  it('reads the matrix cells of a run from its raw results (other results ignored)', () => {
    const result = (name: string, details: unknown) =>
      ({ name, parameters: { client: 'rabbitmq-client', client_profile: 'defaults' }, details }) as unknown as RawResult;
    expect(
      matrixCells([
        result('fault_matrix_alarm', { kind: 'fault_matrix', verdict: { ok: false, cell: '❌ close() hung', findings: ['x'] } }),
        result('recovery_after_reset_peer', { kind: 'recovery' }),
      ]),
    ).toEqual([
      {
        fault: 'fault_matrix_alarm',
        configuration: 'rabbitmq-client (defaults)',
        verdict: expect.objectContaining({ cell: '❌ close() hung' }),
      },
    ]);
  });

  it('refuses a repeat that is not a whole number of runs', () => {
    expect(() => resolveFaultsOptions({ repeat: '0' })).toThrow(/--repeat.*a whole number of runs, 1 or more/);
    expect(() => resolveFaultsOptions({ repeat: 'three' })).toThrow(/--repeat/);
    expect(resolveFaultsOptions({ repeat: '3' })).toMatchObject({
      repeat: 3,
      run: { markerExpression: 'faults and not slow', replicates: 1 },
    });
  });
});
