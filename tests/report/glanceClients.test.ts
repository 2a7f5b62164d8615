/** The first screen of a run with several client configurations: one configuration's recovery rows, and where the rest are. */
import { buildGlance } from '../../src/report/glance';
import type { RawResult } from '../../src/results/rawResult';
import { recordedRun } from './recorded';
import { figuresOf } from './support/reading';

const asClient =
  (name: string, profile: string) =>
  (result: RawResult): RawResult => ({
    ...result,
    parameters: { ...result.parameters, client: name, client_profile: profile },
  });

describe('the first screen of a client shoot-out', () => {
  it("lists the first configuration's recovery scenarios only, labelled without the client, and says where the others are", () => {
    const run = recordedRun();
    const single = buildGlance(run);
    const shootOut = buildGlance({
      ...run,
      results: [...run.results.map(asClient('rabbitmq-client', 'defaults')), ...run.results.map(asClient('amqplib', 'defaults'))],
    });
    // Registry order: amqplib first, whatever the order of the results.
    expect(shootOut.recovery.rows.map((row) => row.scenario)).toEqual(single.recovery.rows.map((row) => row.scenario));
    expect(shootOut.recovery.rows.length).toBeGreaterThan(0);
    // The legend names the configuration shown, how many there are, and the section with all of them.
    expect(shootOut.recovery.legend.startsWith('amqplib (defaults), ')).toBe(true);
    expect(figuresOf(shootOut.recovery.legend)[0]).toBe('2');
    expect(shootOut.recovery.legend).toContain('Clients side by side');
    expect(single.recovery.legend).not.toMatch(/client configurations/);
  });
});
