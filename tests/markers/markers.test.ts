import { BenchError, MarkerExpressionError, describeError } from '../../src/errors';
import {
  MARKERS,
  describeSelection,
  evaluateMarkerExpression,
  formatMarkerExpression,
  parseMarkerExpression,
  readDocblockMarkers,
  type MarkerExpression,
} from '../../src/markers';

const TIMEOUT_MS = 5_000;

/** Parses, requiring an expression (not the empty "select everything"). */
function parsed(source: string): MarkerExpression {
  const expression = parseMarkerExpression(source);
  if (expression === undefined) throw new Error(`expected an expression from ${JSON.stringify(source)}`);
  return expression;
}

function selects(source: string, markers: readonly string[]): boolean {
  return evaluateMarkerExpression(parseMarkerExpression(source), markers);
}

function parseError(source: string): MarkerExpressionError {
  try {
    parseMarkerExpression(source, { origin: 'BENCH_MARKERS' });
  } catch (error) {
    if (error instanceof MarkerExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be rejected`);
}

describe('marker expressions: selection', () => {
  // Marker sets of typical tests: a quick benchmark, a slow one, a stress one, a slow stress one, an unmarked file.
  const quick = ['benchmark'];
  const slow = ['benchmark', 'slow'];
  const stress = ['benchmark', 'stress'];
  const slowStress = ['benchmark', 'stress', 'slow'];
  const unmarked: string[] = [];
  const kinds = { quick, slow, stress, slowStress, unmarked };

  test.each([
    ['benchmark', { quick: true, slow: true, stress: true, slowStress: true, unmarked: false }],
    ['not slow', { quick: true, slow: false, stress: true, slowStress: false, unmarked: true }],
    ['not stress', { quick: true, slow: true, stress: false, slowStress: false, unmarked: true }],
    ['stress', { quick: false, slow: false, stress: true, slowStress: true, unmarked: false }],
    ['benchmark and not slow and not stress', { quick: true, slow: false, stress: false, slowStress: false, unmarked: false }],
    ['(slow or stress) and not benchmark', { quick: false, slow: false, stress: false, slowStress: false, unmarked: false }],
    ['slow or stress', { quick: false, slow: true, stress: true, slowStress: true, unmarked: false }],
    ['not (slow or stress)', { quick: true, slow: false, stress: false, slowStress: false, unmarked: true }],
  ] as const)(
    '%s',
    (source, expected) => {
      for (const [kind, markers] of Object.entries(kinds)) {
        expect([kind, selects(source, markers)]).toEqual([kind, expected[kind as keyof typeof expected]]);
      }
    },
    TIMEOUT_MS,
  );

  test(
    '(slow or stress) and not benchmark selects a slow test outside the benchmark marker',
    () => {
      expect(selects('(slow or stress) and not benchmark', ['slow'])).toBe(true);
      expect(selects('(slow or stress) and not benchmark', ['stress'])).toBe(true);
    },
    TIMEOUT_MS,
  );

  test.each([undefined, '', '   ', '\t\n'])(
    'an absent or blank expression (%p) selects everything',
    (source) => {
      expect(parseMarkerExpression(source)).toBeUndefined();
      expect(evaluateMarkerExpression(parseMarkerExpression(source), [])).toBe(true);
      expect(evaluateMarkerExpression(undefined, ['slow'])).toBe(true);
    },
    TIMEOUT_MS,
  );

  test(
    'whitespace around and between tokens does not matter',
    () => {
      expect(formatMarkerExpression(parsed('  ( slow\tor stress )and not\nbenchmark '))).toBe('((slow or stress) and not benchmark)');
      expect(formatMarkerExpression(parsed('not(slow)'))).toBe('not slow');
    },
    TIMEOUT_MS,
  );
});

describe('marker expressions: precedence (not > and > or, left-associative)', () => {
  test.each([
    ['benchmark', 'benchmark'],
    ['not slow', 'not slow'],
    ['benchmark and not slow and not stress', '((benchmark and not slow) and not stress)'],
    ['(slow or stress) and not benchmark', '((slow or stress) and not benchmark)'],
    ['slow or stress and not benchmark', '(slow or (stress and not benchmark))'],
    ['slow and stress or benchmark', '((slow and stress) or benchmark)'],
    ['slow or stress or benchmark', '((slow or stress) or benchmark)'],
    ['not slow and stress', '(not slow and stress)'],
    ['not (slow and stress)', 'not (slow and stress)'],
    ['not not slow', 'not not slow'],
    ['((slow))', 'slow'],
  ])(
    '%s reads as %s',
    (source, shape) => {
      expect(formatMarkerExpression(parsed(source))).toBe(shape);
    },
    TIMEOUT_MS,
  );

  test(
    'and binds tighter than or when evaluated',
    () => {
      // slow or (stress and benchmark): true for a slow test without the other two.
      expect(selects('slow or stress and benchmark', ['slow'])).toBe(true);
      // (slow or stress) and benchmark would have been false.
      expect(selects('(slow or stress) and benchmark', ['slow'])).toBe(false);
    },
    TIMEOUT_MS,
  );

  test(
    'the AST records where each marker name starts',
    () => {
      expect(parsed('not  slow')).toEqual({ kind: 'not', operand: { kind: 'marker', name: 'slow', position: 5 } });
    },
    TIMEOUT_MS,
  );
});

describe('marker expressions: malformed', () => {
  test.each([
    // unbalanced parentheses
    ['(slow', 6, 'expected "and", "or" or ")" to close the "(" at column 1, found the end of the expression'],
    ['((slow)', 8, 'expected "and", "or" or ")" to close the "(" at column 1, found the end of the expression'],
    ['slow)', 5, 'expected "and", "or" or the end of the expression, found ")"'],
    // dangling operators
    ['benchmark and', 14, 'expected a marker name, "not" or "(" after "and", found the end of the expression'],
    ['slow or', 8, 'expected a marker name, "not" or "(" after "or", found the end of the expression'],
    ['not', 4, 'expected a marker name, "not" or "(" after "not", found the end of the expression'],
    ['and slow', 1, 'expected a marker name, "not" or "(", found "and"'],
    ['slow or or stress', 9, 'expected a marker name, "not" or "(" after "or", found "or"'],
    ['not (slow and )', 15, 'expected a marker name, "not" or "(" after "and", found ")"'],
    // empty parentheses
    ['()', 2, 'expected a marker name, "not" or "(" after "(", found ")"'],
    ['benchmark and ()', 16, 'expected a marker name, "not" or "(" after "(", found ")"'],
    // two names without an operator
    ['slow stress', 6, 'expected "and", "or" or the end of the expression, found marker "stress"'],
    // unknown characters
    ['slow & stress', 6, 'unexpected character "&"; expected "and" (write operators as words)'],
    ['slow || stress', 6, 'unexpected character "|"; expected "or" (write operators as words)'],
    ['!slow', 1, 'unexpected character "!"; expected "not" (write operators as words)'],
    ['slow #x', 6, 'unexpected character "#"; expected a marker name, "and", "or", "not", "(" or ")"'],
    ['1slow', 1, 'unexpected character "1"; expected a marker name, "and", "or", "not", "(" or ")"'],
    // unknown markers
    [
      'stres',
      1,
      'unknown marker "stres" (did you mean "stress"?); known markers: benchmark, stress, slow, cluster, faults, witness, capture, variant',
    ],
    [
      'benchmark and SLOW',
      15,
      'unknown marker "SLOW" (did you mean "slow"?); known markers: benchmark, stress, slow, cluster, faults, witness, capture, variant',
    ],
    [
      'AND slow',
      1,
      'unknown marker "AND" (operators are lowercase: "and"); known markers: benchmark, stress, slow, cluster, faults, witness, capture, variant',
    ],
    ['slow AND stress', 6, 'expected "and", "or" or the end of the expression, found marker "AND" (operators are lowercase: "and")'],
    ['integration', 1, 'unknown marker "integration"; known markers: benchmark, stress, slow, cluster, faults, witness, capture, variant'],
  ])(
    '%s: column %i, %s',
    (source, column, problem) => {
      const error = parseError(source);
      expect(error.message).toBe(
        `Invalid marker expression ${JSON.stringify(source)} (from BENCH_MARKERS) at column ${column}: ${problem}.`,
      );
      expect(error.position).toBe(column - 1);
      expect(error.problem).toBe(problem);
      expect(error.expression).toBe(source);
    },
    TIMEOUT_MS,
  );

  test(
    'is a BenchError with code MARKER_EXPRESSION, a one-line message and a caret pointer',
    () => {
      const error = parseError('benchmark and (');
      expect(error).toBeInstanceOf(BenchError);
      expect(error.code).toBe('MARKER_EXPRESSION');
      expect(error.name).toBe('MarkerExpressionError');
      expect(error.message).not.toContain('\n');
      expect(describeError(error)).toBe(error.message);
      expect(error.pointer).toBe('benchmark and (\n               ^');
    },
    TIMEOUT_MS,
  );

  test(
    'names no origin when none is given',
    () => {
      expect(() => parseMarkerExpression('(')).toThrow(
        'Invalid marker expression "(" at column 2: expected a marker name, "not" or "(" after "(", found the end of the expression.',
      );
    },
    TIMEOUT_MS,
  );

  test(
    'knownMarkers widens or lifts the marker check',
    () => {
      expect(selects('stress', ['stress'])).toBe(true);
      expect(
        evaluateMarkerExpression(parseMarkerExpression('integration or slow', { knownMarkers: [...MARKERS, 'integration'] }), [
          'integration',
        ]),
      ).toBe(true);
      expect(evaluateMarkerExpression(parseMarkerExpression('anything_goes', { knownMarkers: 'any' }), ['anything_goes'])).toBe(true);
    },
    TIMEOUT_MS,
  );
});

describe('docblock markers', () => {
  test.each([
    ['two markers on one line', '/** @benchmark @slow */\nimport x from "y";\n', ['benchmark', 'slow']],
    ['one marker per line', '/**\n * @stress\n * @benchmark\n */\ntest("a", () => {});\n', ['benchmark', 'stress']],
    ['no docblock', 'import x from "y";\ntest("a", () => {});\n', []],
    ['a docblock after code is not the file docblock', 'const a = 1;\n/** @slow */\n', []],
    ['a line comment is not a docblock', '// @slow\n', []],
    [
      'other tags and prose are ignored',
      '/**\n * Throughput of plain publishes.\n *\n * @jest-environment node\n * @benchmark\n * @see https://example.com\n */\n',
      ['benchmark'],
    ],
    ['unknown tags are not markers', '/** @flow @integration */\n', []],
    ['a repeated marker counts once, in MARKERS order', '/**\n * @slow @benchmark\n * @slow\n */\n', ['benchmark', 'slow']],
    ['an empty file', '', []],
  ])(
    '%s',
    (_case, source, markers) => {
      expect(readDocblockMarkers(source)).toEqual(markers);
    },
    TIMEOUT_MS,
  );
});

describe('describeSelection', () => {
  test.each([
    [{ expression: undefined, selected: 12, total: 12 }, 'no marker expression: all 12 tests selected'],
    [{ expression: 'not slow', selected: 8, total: 12 }, 'marker expression "not slow" selects 8 of 12 tests; 4 reported as skipped'],
    [{ expression: 'benchmark', selected: 3, total: 3 }, 'marker expression "benchmark" selects all 3 tests'],
    [
      { expression: 'stress', selected: 0, total: 12 },
      'marker expression "stress" selects no tests (0 of 12); all 12 are reported as skipped',
    ],
    [{ expression: 'stress', selected: 0, total: 1 }, 'marker expression "stress" selects no tests (0 of 1); it is reported as skipped'],
    [{ expression: 'stress', selected: 0, total: 0 }, 'marker expression "stress": no tests found to select from'],
    [
      { expression: 'stress', selected: 0, total: 6, scope: 'bench_throughput.bench.ts', markers: ['benchmark'] },
      'bench_throughput.bench.ts: marker expression "stress" selects no tests (0 of 6; file markers: @benchmark); all 6 are reported as skipped',
    ],
    [
      { expression: 'slow', selected: 0, total: 2, scope: 'a.bench.ts', markers: [] },
      'a.bench.ts: marker expression "slow" selects no tests (0 of 2; file markers: none); all 2 are reported as skipped',
    ],
  ])(
    '%j',
    (summary, line) => {
      expect(describeSelection(summary)).toBe(line);
    },
    TIMEOUT_MS,
  );
});
