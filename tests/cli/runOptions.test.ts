/**
 * Which marker expression `bench run` passes to Jest: -m, else BENCH_MARKERS from the
 * environment, else the quick or full selection; a malformed one fails before anything runs,
 * naming where it came from.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CLIENTS_MARKERS, resolveRunOptions } from '../../src/cli/runOptions';
import { resolveConfig } from '../../src/config';
import { MarkerExpressionError } from '../../src/errors';
import { CLIENT_NAMES, availableClients } from '../../src/client/registry';

const config = resolveConfig({});

describe('the marker expression of a run', () => {
  it.each([
    [{}, {}, 'benchmark'],
    [{ quick: true }, {}, 'benchmark and not slow and not stress and not witness'],
    [{}, { BENCH_MARKERS: 'benchmark and slow' }, 'benchmark and slow'],
    [{ quick: true }, { BENCH_MARKERS: 'benchmark and not stress' }, 'benchmark and not stress'],
    [{ markers: 'stress' }, { BENCH_MARKERS: 'slow' }, 'stress'],
    [{}, { BENCH_MARKERS: '' }, 'benchmark'],
  ])('input %p with environment %p selects %p', (input, env, expected) => {
    expect(resolveRunOptions(input, config, '/', env).markerExpression).toBe(expected);
  });

  it('bench:clients runs the quick selection without its variants, as its npm script spells it', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    expect(CLIENTS_MARKERS).toBe('benchmark and not slow and not stress and not witness and not variant');
    expect(scripts['bench:clients']).toBe(`node bin/bench.js run -m "${CLIENTS_MARKERS}" --clients all --replicates 1`);
  });

  it('refuses a malformed BENCH_MARKERS by name, before anything runs', () => {
    expect(() => resolveRunOptions({}, config, '/', { BENCH_MARKERS: 'benchmark and' })).toThrow(MarkerExpressionError);
    expect(() => resolveRunOptions({}, config, '/', { BENCH_MARKERS: 'benchmark and' })).toThrow(/BENCH_MARKERS/);
    expect(() => resolveRunOptions({}, config, '/', { BENCH_MARKERS: '   ' })).toThrow(/^BENCH_MARKERS must be a marker expression/);
  });
});

describe('the clients and replicates of a run', () => {
  it('takes --clients over BENCH_CLIENTS, and --replicates over BENCH_REPLICATES', () => {
    const fromEnvironment = resolveConfig({ BENCH_CLIENTS: 'cloudamqp:defaults', BENCH_REPLICATES: '3' });
    expect(resolveRunOptions({}, fromEnvironment, '/', {})).toMatchObject({
      clients: [{ name: 'cloudamqp', profile: 'defaults' }],
      replicates: 3,
    });
    const options = resolveRunOptions({ clients: 'all', replicates: ' 1 ' }, fromEnvironment, '/', {});
    // Every client this machine can run, in both profiles (the programs of other languages where their runtime is installed).
    expect(options.clients).toHaveLength(availableClients().length * 2);
    expect(options.replicates).toBe(1);
    expect(resolveRunOptions({}, config, '/', {})).toMatchObject({ clients: [{ name: 'amqplib', profile: 'defaults' }], replicates: null });
  });

  it('refuses an unknown client or a bad replicate count, naming the option and the valid clients', () => {
    expect(() => resolveRunOptions({ clients: 'amqplib,kafkajs' }, config, '/', {})).toThrow(
      new RegExp(
        `^--clients must be "all" or a comma-separated list of clients \\(${CLIENT_NAMES.join(', ')}\\) or adapter modules \\(\\./bench/myClient\\.ts\\), each optionally :defaults or :normalised \\(unknown client "kafkajs"\\); got "amqplib,kafkajs"$`,
      ),
    );
    expect(() => resolveRunOptions({ replicates: '0' }, config, '/', {})).toThrow(
      /^--replicates must be a whole number of replicates from 1 to 50/,
    );
  });
});
