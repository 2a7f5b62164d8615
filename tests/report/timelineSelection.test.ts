/**
 * Which recovery scenarios get a timeline chart: all of them for one client configuration; with
 * several (a shoot-out), only the first configuration's, so the report stays readable.
 */
import { timelineResults } from '../../src/report/charts';
import { rawResult } from '../results/helpers';

const scenario = (client: string, profile: string, threads: number) =>
  rawResult({
    name: 'recovery_after_reset_peer',
    category: 'recovery',
    parameters: { client, client_profile: profile, threads },
    metrics: { error_detection_latency_ms: { value: 1, unit: 'ms', direction: 'lower' } },
  });

describe('the recovery timelines of a run', () => {
  it('draws every scenario of a single client configuration', () => {
    const results = [scenario('amqplib', 'defaults', 10), scenario('amqplib', 'defaults', 50)];
    expect(timelineResults(results).map((result) => result.parameters.threads)).toEqual([10, 50]);
  });

  it('draws only the first configuration’s (amqplib defaults) when several clients ran', () => {
    const results = [
      scenario('rabbitmq-client', 'defaults', 10),
      scenario('amqplib', 'normalised', 10),
      scenario('amqplib', 'defaults', 10),
      scenario('amqplib', 'defaults', 50),
      scenario('cloudamqp', 'normalised', 50),
    ];
    const drawn = timelineResults(results).map(
      (result) => `${result.parameters.client}/${result.parameters.client_profile}/${result.parameters.threads}`,
    );
    expect(drawn).toEqual(['amqplib/defaults/10', 'amqplib/defaults/50']);
  });
});
