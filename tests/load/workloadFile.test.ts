/**
 * Workload files: every example in workloads/ resolves; bad files fail with the file, the line and
 * the field of the problem (the schema's checks and the resolution's alike).
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkloadFileError } from '../../src/errors';
import { parseWorkloadText, readWorkloadFile, resolveWorkloadFile } from '../../src/load/workloadFile';

const ROOT = path.resolve(__dirname, '../..');

function problemOf(text: string, file = 'workloads/x.yaml'): string {
  try {
    resolveWorkloadFile(parseWorkloadText(text, file));
  } catch (error) {
    expect(error).toBeInstanceOf(WorkloadFileError);
    return (error as Error).message;
  }
  throw new Error('expected the workload to be refused');
}

describe('workload files', () => {
  const examples = fs.readdirSync(path.join(ROOT, 'workloads')).filter((file) => /\.(ya?ml|json)$/.test(file));

  test('there are the four examples the docs name', () => {
    expect(examples.sort()).toEqual(['latency-fault.yaml', 'perftest-like.yaml', 'quorum.yaml', 'stream.yaml']);
  });

  test.each(examples)('workloads/%s resolves', (file) => {
    const workload = resolveWorkloadFile(readWorkloadFile(path.join(ROOT, 'workloads', file)));
    expect(workload.durationMs).toBeGreaterThan(0);
    expect(workload.name).toMatch(/^[a-z0-9_]+$/);
  });

  test('the fault window example schedules latency 200 ms from 10 s for 5 s', () => {
    const workload = resolveWorkloadFile(readWorkloadFile(path.join(ROOT, 'workloads', 'latency-fault.yaml')));
    expect(workload.faults).toEqual([
      {
        text: 'latency:200ms',
        spec: { kind: 'latency', options: expect.objectContaining({ latency_ms: 200 }) },
        atMs: 10_000,
        lengthMs: 5000,
      },
    ]);
    expect(workload.rate).toEqual({ kind: 'constant', perSecond: 2000 });
  });

  test('a JSON file is read the same way', () => {
    const workload = resolveWorkloadFile(readWorkloadFile(path.join(__dirname, 'fixtures', 'good.json')));
    expect(workload).toMatchObject({
      name: 'json_example',
      producers: 2,
      rate: { kind: 'ramp', fromPerSecond: 100, toPerSecond: 300, durationMs: 10_000 },
      size: { kind: 'uniform', minBytes: 64, maxBytes: 128 },
      ack: { kind: 'auto' },
      durationMs: 20_000,
    });
  });

  test('defaults fill what a file leaves out', () => {
    const workload = resolveWorkloadFile(parseWorkloadText('producers: 3\n', 'w.yaml'));
    expect(workload).toMatchObject({
      name: 'load',
      producers: 3,
      consumers: 1,
      rate: { kind: 'constant', perSecond: 1000 },
      size: { kind: 'fixed', bytes: 256 },
      queueType: 'classic',
      ack: { kind: 'manual' },
      confirmWindow: 0,
      durationMs: 30_000,
      warmupMs: 0,
      client: { name: 'amqplib', profile: 'defaults' },
    });
  });

  test('a negative rate names its line and field', () => {
    expect(problemOf('producers: 1\nconsumers: 1\n\n# the rate\n\n\nrate: -5\n')).toBe('workloads/x.yaml line 7: rate: must be ≥ 0');
  });

  test('a rate of the wrong type says what a rate may be', () => {
    expect(problemOf('rate: fast\n')).toMatch(/^workloads\/x\.yaml line 1: rate: must be .*steps.*ramp/);
  });

  test('an unknown field is named with its line', () => {
    expect(problemOf('producers: 1\nproducer_count: 2\n')).toMatch(/^workloads\/x\.yaml line 2: producer_count: is not a workload field/);
  });

  test('a duration without a unit says what it must look like', () => {
    expect(problemOf('duration: 30\n')).toBe('workloads/x.yaml line 1: duration: must be string');
    expect(problemOf('duration: "30"\n')).toBe('workloads/x.yaml line 1: duration: must be a duration such as 500ms, 30s or 2m');
  });

  test('a message smaller than its header is refused', () => {
    expect(problemOf('rate: 10\nsize: 8\n')).toBe('workloads/x.yaml line 2: size: must be ≥ 16');
    expect(problemOf('size: "8:100"\n')).toMatch(/^workloads\/x\.yaml line 1: size: must be a whole number of bytes ≥ 16/);
  });

  test('a bad step of a rate names the step', () => {
    expect(problemOf('rate:\n  steps:\n    - rate: 100\n      duration: 5s\n    - rate: 0\n      duration: 5s\n')).toBe(
      'workloads/x.yaml line 5: rate.steps[1].rate: must be > 0',
    );
  });

  test('an unknown fault kind names the fault line and the kinds there are', () => {
    expect(problemOf('rate: 10\nfaults:\n  - fault: meteor\n    at: 1s\n    length: 1s\n')).toMatch(
      /^workloads\/x\.yaml line 3: faults\[0\]\.fault: fault kind must be one of reset_peer, .*latency/,
    );
  });

  test('a fault without a length says it is required, at the fault', () => {
    expect(problemOf('faults:\n  - fault: reset_peer\n    at: 1s\n')).toBe('workloads/x.yaml line 2: faults[0].length: is required');
  });

  test('an ack mode of the wrong form lists the forms', () => {
    expect(problemOf('ack: sometimes\n')).toBe('workloads/x.yaml line 1: ack: must be auto, manual, multiple:N or nack:FRACTION');
  });

  test('a YAML syntax error names its line', () => {
    expect(problemOf('rate: 10\nsize: [1, 2\n')).toMatch(/^workloads\/x\.yaml line \d: is not valid YAML/);
  });

  test('a JSON file with a bad value names its line', () => {
    expect(problemOf('{\n  "rate": 10,\n  "queues": 0\n}\n', 'w.json')).toBe('w.json line 3: queues: must be ≥ 1');
  });

  test('a missing file says so', () => {
    expect(() => readWorkloadFile('workloads/none.yaml')).toThrow('workloads/none.yaml: cannot be read (no such file)');
  });

  test('a flag that overrides a file field is blamed on the flags', () => {
    const content = parseWorkloadText('rate: 10\n', 'w.yaml');
    expect(() => resolveWorkloadFile(content, { duration: '0s' })).toThrow('the flags: duration: must be longer than 0');
  });
});
