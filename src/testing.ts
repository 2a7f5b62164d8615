/**
 * Marker selection inside Jest. A test whose markers (its file's docblock markers plus its own)
 * do not match the marker expression (BENCH_MARKERS) is registered with `test.skip`, so Jest
 * reports it as skipped and counts it; nothing is dropped silently.
 *
 * - `markedTest(markers)` registers a test with markers of its own; `withMarkers` marks one row
 *   of a `.each` table. Both work with or without the marker filter installed.
 * - `installMarkerFilter()` (called by fixtures/markerFilter.ts, a setupFilesAfterEnv module)
 *   makes the plain globals `test`/`it`/`fit` obey the file's markers the same way. Tests that
 *   import `test` from `@jest/globals` bypass it: use the globals or `markedTest`.
 */
import path from 'node:path';
import fs from 'node:fs';
import { getConfig } from './config';
import { MarkerExpressionError } from './errors';
import {
  describeSelection,
  evaluateMarkerExpression,
  parseMarkerExpression,
  readDocblockMarkers,
  type Marker,
  type MarkerExpression,
} from './markers';

/** The selection state of one test file: parsed once, then tallied as tests register. */
export interface FileSelection {
  readonly testPath: string;
  readonly fileMarkers: readonly Marker[];
  readonly expression: string | undefined;
  readonly parsed: MarkerExpression | undefined;
  /** Tests registered to run so far (rows of a `.each` count one each). */
  selected: number;
  /** Tests registered as skipped because the expression deselected them. */
  deselected: number;
}

const selections = new Map<string, FileSelection>();

/**
 * The selection of the test file being collected: its docblock markers and the parsed
 * BENCH_MARKERS, computed on first use and kept for the file.
 * @throws MarkerExpressionError when BENCH_MARKERS is malformed; Error outside a Jest test file.
 */
export function currentFileSelection(): FileSelection {
  const testPath = expect.getState().testPath;
  if (testPath === undefined)
    throw new Error(
      'marker selection works only inside a Jest test file (expect.getState().testPath is unset): call markedTest() from a test file, at its top level or in describe()',
    );
  let selection = selections.get(testPath);
  if (selection === undefined) {
    const expression = getConfig().markerExpression;
    selection = {
      testPath,
      fileMarkers: readDocblockMarkers(fs.readFileSync(testPath, 'utf8')),
      expression,
      parsed: parseMarkerExpression(expression, { origin: 'BENCH_MARKERS' }),
      selected: 0,
      deselected: 0,
    };
    selections.set(testPath, selection);
  }
  return selection;
}

function selects(selection: FileSelection, markers: readonly Marker[]): boolean {
  return evaluateMarkerExpression(selection.parsed, [...selection.fileMarkers, ...markers]);
}

/** The note printed once per file when the expression selects none of its tests, else `undefined`. */
export function zeroSelectionNote(selection: FileSelection, cwd = process.cwd()): string | undefined {
  if (selection.expression === undefined || selection.selected > 0 || selection.deselected === 0) return undefined;
  return describeSelection({
    expression: selection.expression,
    selected: 0,
    total: selection.deselected,
    scope: path.relative(cwd, selection.testPath),
    markers: selection.fileMarkers,
  });
}

const MARKED_ROW: unique symbol = Symbol.for('amqp-bench.markedRow');

/** One row of a `.each` table with markers of its own (see `withMarkers`). */
export interface MarkedRow<Row> {
  readonly [MARKED_ROW]: true;
  readonly markers: readonly Marker[];
  readonly row: Row;
}

/**
 * Marks one row of a `markedTest(...).each` table, like pytest's `pytest.param(..., marks=...)`.
 * The row's markers add to the test's and the file's.
 * @example
 * markedTest().each([[10, 100], withMarkers(['slow'], [300, 50])])('test_publish[%i-%i]', async (threads, perThread) => {}, 60_000);
 */
export function withMarkers<Row>(markers: readonly Marker[], row: Row): MarkedRow<Row> {
  return { [MARKED_ROW]: true, markers: [...markers], row };
}

function isMarkedRow(value: unknown): value is MarkedRow<unknown> {
  return typeof value === 'object' && value !== null && (value as Partial<MarkedRow<unknown>>)[MARKED_ROW] === true;
}

type TestBody = jest.ProvidesCallback;
type Register = (name: string, fn?: TestBody, timeoutMs?: number) => void;
type EachRegister = (name: string, fn: (...args: never[]) => unknown, timeoutMs?: number) => void;
type EachTable = (table: unknown, ...templateValues: unknown[]) => EachRegister;
/** A Jest registration function (`test`, `test.only`, `test.concurrent`, ...) seen loosely. */
type JestRegister = Register & { each: EachTable };

/** A test registration with its rows' markers applied; see `markedTest`. */
export interface MarkedTest {
  (name: string, fn: TestBody, timeoutMs?: number): void;
  /** One test per row; rows may carry their own markers (`withMarkers`). Titles format as in Jest's `test.each`. */
  each<Row extends readonly unknown[]>(
    table: ReadonlyArray<Row | MarkedRow<Row>>,
  ): (name: string, fn: (...args: Row) => unknown, timeoutMs?: number) => void;
  each<Row>(table: ReadonlyArray<Row | MarkedRow<Row>>): (name: string, fn: (row: Row) => unknown, timeoutMs?: number) => void;
  /** Like `test.only`; a deselected test is still skipped. */
  readonly only: MarkedTest;
  /** Like `test.concurrent`. */
  readonly concurrent: MarkedTest;
}

/** Replaces the first `%#` and `%$` (Jest's row index and number) as Jest would for row `index`. */
function titleForRow(title: string, index: number): string {
  const escaped = '\u0000';
  return title
    .replaceAll('%%', escaped)
    .replace('%#', String(index))
    .replace('%$', String(index + 1))
    .replaceAll(escaped, '%%');
}

function templateRowCount(strings: TemplateStringsArray, values: readonly unknown[]): number {
  const columns = (strings[0] ?? '').split('|').filter((heading) => heading.trim() !== '').length;
  return columns === 0 ? 0 : Math.floor(values.length / columns);
}

/** `run` when the markers match, else `skip`, tallied for the file; `.each` decides row by row. */
function selectable(run: JestRegister, skip: JestRegister, markers: readonly Marker[]): Register & { each: EachTable } {
  const register: Register = (name, fn, timeoutMs) => {
    const selection = currentFileSelection();
    const chosen = selects(selection, markers) ? run : skip;
    if (chosen === run) selection.selected += 1;
    else selection.deselected += 1;
    chosen(name, fn, timeoutMs);
  };
  const each: EachTable = (table, ...templateValues) => {
    const selection = currentFileSelection();
    if (!Array.isArray(table) || 'raw' in table) {
      // A tagged-template table: the test's markers decide for every row.
      const chosen = selects(selection, markers) ? run : skip;
      const rows = Array.isArray(table) ? templateRowCount(table as unknown as TemplateStringsArray, templateValues) : 0;
      if (chosen === run) selection.selected += rows;
      else selection.deselected += rows;
      return chosen.each(table, ...templateValues);
    }
    const rows = (table as readonly unknown[]).map((entry) => (isMarkedRow(entry) ? entry : { markers: [], row: entry }));
    const chosen = rows.map((entry) => (selects(selection, [...markers, ...entry.markers]) ? run : skip));
    const selectedCount = chosen.filter((choice) => choice === run).length;
    selection.selected += selectedCount;
    selection.deselected += rows.length - selectedCount;
    return (name, fn, timeoutMs) => {
      const first = chosen[0] ?? run;
      if (chosen.every((choice) => choice === first)) {
        first.each(rows.map((entry) => entry.row))(name, fn, timeoutMs);
        return;
      }
      // Rows differ: one `.each` per row, keeping each row's index in the title.
      rows.forEach((entry, index) => (chosen[index] as JestRegister).each([entry.row])(titleForRow(name, index), fn, timeoutMs));
    };
  };
  return Object.assign(register, { each });
}

const ORIGINAL: unique symbol = Symbol.for('amqp-bench.originalTest');
type Wrapped = jest.It & { [ORIGINAL]?: jest.It };

/** Jest's own `test`, even after the marker filter replaced the global. */
function jestTest(): jest.It {
  const current = globalThis.test as Wrapped;
  return current[ORIGINAL] ?? current;
}

const loose = (fn: unknown): JestRegister => fn as JestRegister;

function buildMarkedTest(markers: readonly Marker[]): MarkedTest {
  const base = jestTest();
  const make = (run: unknown, skip: unknown, extra: object = {}): MarkedTest =>
    Object.assign(selectable(loose(run), loose(skip), markers), extra) as unknown as MarkedTest;
  return make(base, base.skip, {
    only: make(base.only, base.skip),
    concurrent: make(base.concurrent, base.skip, { only: make(base.concurrent.only, base.skip) }),
  });
}

/**
 * Registers a test carrying markers of its own, added to its file's docblock markers. A test
 * the marker expression (BENCH_MARKERS) deselects is registered with `test.skip`.
 * Call it while the file is collected (top level or inside `describe`).
 * @param markers the test's own markers, e.g. `['slow']`; `[]` for only the file's.
 * @throws MarkerExpressionError when BENCH_MARKERS is malformed.
 * @example
 * /** @benchmark *\/  // first thing in the file
 * import { markedTest, withMarkers } from '../src/testing';
 *
 * describe('TestRecoveryLatency', () => {
 *   markedTest().each([10, withMarkers(['slow'], 50)])('test_recovery_after_reset_peer[%i]', async (threads) => {
 *     // ...
 *   }, 120_000);
 *   markedTest(['stress'])('test_massive_consumers_stress[900-3000]', async () => {}, 600_000);
 * });
 */
export function markedTest(markers: readonly Marker[] = []): MarkedTest {
  return buildMarkedTest(markers);
}

/** The globals the marker filter replaces. */
export interface TestGlobals {
  test: jest.It;
  it: jest.It;
  fit?: jest.It;
}

/**
 * Makes the globals `test`, `it` and `fit` (with `.each`, `.only`, `.concurrent`, `.failing`)
 * register deselected tests as skipped, and parses BENCH_MARKERS now so a malformed expression
 * fails the file before any test registers. Safe to call twice.
 * @throws MarkerExpressionError when BENCH_MARKERS is malformed.
 */
export function installMarkerFilter(globals: TestGlobals = globalThis): void {
  let selection: FileSelection;
  try {
    selection = currentFileSelection();
  } catch (error) {
    // Jest prints a thrown error's stack under "Test suite failed to run"; the parser's frames
    // say nothing to the user, the expression with a caret does.
    if (error instanceof MarkerExpressionError)
      error.stack = `${error.name}: ${error.message}\n\n    ${error.pointer.replace('\n', '\n    ')}\n`;
    throw error;
  }
  if ((globals.test as Wrapped)[ORIGINAL] !== undefined) return;
  const original = globals.test;
  const wrapped = wrapTestGlobal(original);
  globals.it = globals.it === original ? wrapped : wrapTestGlobal(globals.it);
  globals.test = wrapped;
  if (globals.fit !== undefined) globals.fit = wrapped.only;
  onCollected(() => {
    const note = zeroSelectionNote(selection);
    if (note !== undefined) process.stderr.write(`${note}\n`);
  });
}

/** A copy of Jest's `test` whose registrations consult the file's markers; `.skip`/`.todo` pass through. */
function wrapTestGlobal(original: jest.It): Wrapped {
  const make = (run: unknown, skip: unknown, extra: object = {}): unknown => Object.assign(selectable(loose(run), loose(skip), []), extra);
  const failing = (run: unknown): unknown => make(run, original.skip.failing);
  return make(original, original.skip, {
    [ORIGINAL]: original,
    only: make(original.only, original.skip, { failing: failing(original.only.failing) }),
    skip: original.skip,
    todo: original.todo,
    failing: failing(original.failing),
    concurrent: make(original.concurrent, original.concurrent.skip, {
      only: make(original.concurrent.only, original.concurrent.skip),
      skip: original.concurrent.skip,
      failing: failing(original.concurrent.failing),
    }),
  }) as Wrapped;
}

/**
 * Runs `callback` once when the file's tests are collected (jest-circus's `run_start`), through
 * the event-handler list circus keeps under `Symbol.for('EVENT_HANDLERS')` on the test global.
 * Hooks cannot do this: circus skips `beforeAll` when every test in the file is skipped.
 */
function onCollected(callback: () => void): void {
  const handlers: unknown = (globalThis as Record<symbol, unknown>)[Symbol.for('EVENT_HANDLERS')];
  if (!Array.isArray(handlers)) return;
  let done = false;
  handlers.push((event: { name: string }) => {
    if (event.name !== 'run_start' || done) return;
    done = true;
    callback();
  });
}
