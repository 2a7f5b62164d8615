import { rawResultProblem } from '../../src/results/collect';

const valid = {
  schema_version: 1,
  name: 'recovery_after_reset_peer',
  category: 'recovery',
  test_id: 'benchmarks/bench_recovery_latency.bench.ts::TestRecoveryLatency::test_recovery_after_reset_peer[10]',
  parameters: { threads: 10, mode: 'manual' },
  metrics: { error_detection_latency_ms: { value: 1.5, unit: 'ms', direction: 'lower' } },
  timestamp: '2025-01-31T12:00:00.000Z',
  fingerprint: '1a2b3c4d',
};

// The generated types are checked against the schema by `npm run lint` (scripts/schema-types.js --check).
describe('the raw-result schema is the contract', () => {
  it('accepts a result the schema allows, extra fields included', () => {
    expect(rawResultProblem(valid)).toBeUndefined();
    expect(rawResultProblem({ ...valid, future_field: 1 })).toBeUndefined();
  });

  it.each([
    ['not an object', [], 'the document must be object'],
    ['a missing field', { ...valid, fingerprint: undefined }, "the document must have required property 'fingerprint'"],
    ['a bad name', { ...valid, name: 'Recovery' }, '/name must match pattern "^[a-z0-9_]+$"'],
    ['a category that is no suite name', { ...valid, category: 'Recovery suite' }, '/category must match pattern "^[a-z_]+$"'],
    [
      'an unknown direction',
      { ...valid, metrics: { x: { value: 1, unit: 'ms', direction: 'up' } } },
      '/metrics/x/direction must be equal to one of the allowed values (higher, lower, none)',
    ],
    ['a sample that is not a number', { ...valid, samples: { x: [1, 'two'] } }, '/samples/x/1 must be number'],
    ['a timestamp that is not a date', { ...valid, timestamp: 'yesterday' }, '/timestamp must match format "date-time"'],
  ])('says what is wrong with %s', (_label, value, problem) => {
    expect(rawResultProblem(JSON.parse(JSON.stringify(value)))).toBe(problem);
  });
});
