/**
 * Benchmark markers and pytest-style marker expressions. Pure: no Jest and no I/O here (the
 * Jest glue is `src/testing.ts` and `fixtures/markerFilter.ts`).
 *
 * - A benchmark file carries markers in its leading docblock (`/** @benchmark @stress *\/`);
 *   a test may add more through `markedTest` (src/testing.ts).
 * - A marker expression selects tests: marker names with `not`, `and`, `or` and parentheses,
 *   binding in that order (`not` tightest), e.g. `benchmark and not slow and not stress`.
 *   It comes from BENCH_MARKERS (the run script's `-m` sets it: Jest rejects unknown flags);
 *   absent or blank selects everything. A deselected test is reported as skipped.
 * - Only the known markers (`benchmark`, `stress`, `slow`, `cluster`, `faults`, `witness`, `capture`, `variant`) may be named in an
 *   expression: a typo such as `-m stres` would otherwise select nothing, or with `not`,
 *   everything. `cluster` marks tests that need the local benchmark cluster (`npm run
 *   cluster:up`); they are skipped, with the reason, while it is down (fixtures/cluster.ts).
 *   `faults` marks the fault matrix (`npm run bench:faults`), outside the `benchmark` runs.
 *   `witness` marks the harness checking itself (harness/bare ratios, the proxy's overhead):
 *   `bench verify` runs them, the quick run leaves them out.
 *   `capture` marks the scenario whose fault timeline `bench verify` checks against a packet
 *   capture (reset_peer at 10 threads; it stays in the quick run too).
 *   `variant` marks a quick test that measures again, at another scale or under another
 *   condition, a fault other quick tests measure (the recovery suite's 50-thread rows, the reset
 *   behind latency, the network resilience summary, whose reset and partition are the recovery
 *   suite's 10-thread rows): `npm run bench:clients` leaves them out to fit ten client
 *   configurations in its time; the quick run keeps them.
 *
 * Less parallelism (`bench run -n 1`): the benchmark project already runs one test
 * file at a time (`maxWorkers: 1` in jest.config.ts); `--runInBand` (`-i`) also keeps that file
 * in the Jest process itself, without a worker. Inside a file, tests run one after another
 * unless written with `test.concurrent`. Worker threads a benchmark starts are its own
 * parameters (e.g. `[10]` threads), not Jest's.
 */
import { extract, parse } from 'jest-docblock';
import { MarkerExpressionError } from './errors';

/** The markers the harness knows, in the order they are listed in messages. */
export const MARKERS = ['benchmark', 'stress', 'slow', 'cluster', 'faults', 'witness', 'capture', 'variant'] as const;
export type Marker = (typeof MARKERS)[number];

/** A parsed marker expression. `position` is the 0-based offset of the name in the source. */
export type MarkerExpression =
  | { readonly kind: 'marker'; readonly name: string; readonly position: number }
  | { readonly kind: 'not'; readonly operand: MarkerExpression }
  | { readonly kind: 'and' | 'or'; readonly left: MarkerExpression; readonly right: MarkerExpression };

export interface ParseMarkerOptions {
  /** Names an expression may use; any other name is an error. `'any'` accepts every identifier (as pytest does). @default MARKERS */
  readonly knownMarkers?: readonly string[] | 'any';
  /** Where the expression came from, named in the error message (e.g. `BENCH_MARKERS`). @default undefined */
  readonly origin?: string;
}

export function isMarker(name: string): name is Marker {
  return (MARKERS as readonly string[]).includes(name);
}

type TokenKind = 'name' | 'and' | 'or' | 'not' | '(' | ')' | 'end';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly position: number;
}

const KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not']);
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const OPERATOR_HINTS: Readonly<Record<string, string>> = { '&': 'and', '|': 'or', '!': 'not', '~': 'not', '-': 'not' };

function tokenize(source: string, fail: (position: number, problem: string) => never): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source.charAt(index);
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: char, text: char, position: index });
      index += 1;
    } else {
      NAME.lastIndex = index;
      const match = NAME.exec(source);
      if (match === null) {
        const hint = OPERATOR_HINTS[char];
        const advice = hint === undefined ? 'a marker name, "and", "or", "not", "(" or ")"' : `"${hint}" (write operators as words)`;
        fail(index, `unexpected character ${JSON.stringify(char)}; expected ${advice}`);
      }
      const text = match[0];
      tokens.push({ kind: KEYWORDS.has(text) ? (text as TokenKind) : 'name', text, position: index });
      index += text.length;
    }
  }
  tokens.push({ kind: 'end', text: '', position: source.length });
  return tokens;
}

function describeToken(token: Token): string {
  if (token.kind === 'end') return 'the end of the expression';
  if (token.kind !== 'name') return `"${token.text}"`;
  const lowered = token.text.toLowerCase();
  return `marker ${JSON.stringify(token.text)}${KEYWORDS.has(lowered) ? ` (operators are lowercase: "${lowered}")` : ''}`;
}

/**
 * Parses a marker expression with the usual precedence (`not` > `and` > `or`, left-associative).
 * Returns `undefined` for an absent or blank expression, which selects everything.
 * @throws MarkerExpressionError naming the expression, the column and what was expected there.
 * @example
 * formatMarkerExpression(parseMarkerExpression('slow or stress and not benchmark')!)
 * // => '(slow or (stress and not benchmark))'
 */
export function parseMarkerExpression(source: string | undefined, options: ParseMarkerOptions = {}): MarkerExpression | undefined {
  if (source === undefined || source.trim() === '') return undefined;
  const known = options.knownMarkers ?? MARKERS;
  const fail = (position: number, problem: string): never => {
    throw new MarkerExpressionError(source, position, problem, options.origin);
  };
  const tokens = tokenize(source, fail);
  let index = 0;
  const peek = (): Token => tokens[index] as Token;
  const next = (): Token => tokens[index++] as Token;
  const unexpected = (expected: string): never => {
    const previous = tokens[index - 1];
    const after = previous !== undefined && previous.kind !== 'name' && previous.kind !== ')' ? ` after "${previous.text}"` : '';
    return fail(peek().position, `expected ${expected}${after}, found ${describeToken(peek())}`);
  };

  const parseOr = (): MarkerExpression => {
    let left = parseAnd();
    while (peek().kind === 'or') {
      next();
      left = { kind: 'or', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): MarkerExpression => {
    let left = parseNot();
    while (peek().kind === 'and') {
      next();
      left = { kind: 'and', left, right: parseNot() };
    }
    return left;
  };
  const parseNot = (): MarkerExpression => {
    if (peek().kind !== 'not') return parsePrimary();
    next();
    return { kind: 'not', operand: parseNot() };
  };
  const parsePrimary = (): MarkerExpression => {
    const token = peek();
    if (token.kind === 'name') {
      next();
      if (known !== 'any' && !known.includes(token.text)) fail(token.position, unknownMarkerProblem(token.text, known));
      return { kind: 'marker', name: token.text, position: token.position };
    }
    if (token.kind !== '(') return unexpected('a marker name, "not" or "("');
    next();
    const inner = parseOr();
    if (peek().kind !== ')') return unexpected(`"and", "or" or ")" to close the "(" at column ${token.position + 1}`);
    next();
    return inner;
  };

  const expression = parseOr();
  if (peek().kind !== 'end') unexpected('"and", "or" or the end of the expression');
  return expression;
}

function unknownMarkerProblem(name: string, known: readonly string[]): string {
  const list = known.join(', ');
  if (KEYWORDS.has(name.toLowerCase()))
    return `unknown marker ${JSON.stringify(name)} (operators are lowercase: "${name.toLowerCase()}"); known markers: ${list}`;
  const close = known.find((candidate) => editDistance(candidate, name.toLowerCase()) <= 2);
  const suggestion = close === undefined ? '' : ` (did you mean ${JSON.stringify(close)}?)`;
  return `unknown marker ${JSON.stringify(name)}${suggestion}; known markers: ${list}`;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const nextRow = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      nextRow.push(Math.min(substitution, (row[j] as number) + 1, (nextRow[j - 1] as number) + 1));
    }
    row = nextRow;
  }
  return row[b.length] as number;
}

/** Whether a test with these markers is selected. `undefined` (no expression) selects everything. */
export function evaluateMarkerExpression(expression: MarkerExpression | undefined, markers: Iterable<string>): boolean {
  if (expression === undefined) return true;
  const present = new Set(markers);
  const evaluate = (node: MarkerExpression): boolean => {
    switch (node.kind) {
      case 'marker':
        return present.has(node.name);
      case 'not':
        return !evaluate(node.operand);
      case 'and':
        return evaluate(node.left) && evaluate(node.right);
      case 'or':
        return evaluate(node.left) || evaluate(node.right);
    }
  };
  return evaluate(expression);
}

/** The expression with every `and`/`or` in parentheses, to show how it was read. */
export function formatMarkerExpression(expression: MarkerExpression): string {
  switch (expression.kind) {
    case 'marker':
      return expression.name;
    case 'not':
      return `not ${formatMarkerExpression(expression.operand)}`;
    case 'and':
    case 'or':
      return `(${formatMarkerExpression(expression.left)} ${expression.kind} ${formatMarkerExpression(expression.right)})`;
  }
}

/**
 * The known markers in a file's leading docblock, deduplicated, in `MARKERS` order. The docblock
 * must be the first thing in the file (before imports). Other tags (`@jest-environment node`,
 * prose) are ignored; markers may share a line (`@benchmark @stress`), which jest-docblock
 * reads as a `benchmark` pragma whose value is `@stress`, so values are scanned for `@name` too.
 */
export function readDocblockMarkers(fileSource: string): Marker[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(parse(extract(fileSource)))) {
    found.add(name);
    for (const text of Array.isArray(value) ? value : [value]) {
      for (const word of text.split(/\s+/)) if (word.startsWith('@')) found.add(word.slice(1));
    }
  }
  return MARKERS.filter((marker) => found.has(marker));
}

/** What a selection did, for one file or a whole run. */
export interface SelectionSummary {
  /** The marker expression as given; `undefined` when none was. */
  readonly expression: string | undefined;
  /** Tests that will run. */
  readonly selected: number;
  /** Every test the expression was applied to (selected + deselected). */
  readonly total: number;
  /** What the numbers cover, e.g. a file name; omitted for a whole run. */
  readonly scope?: string;
  /** The scope's own markers (a file's docblock markers), shown when nothing matched. */
  readonly markers?: readonly string[];
}

/**
 * One plain line saying what a marker selection did; says so outright when it selected nothing.
 * @example
 * describeSelection({ expression: 'stress', selected: 0, total: 6, scope: 'bench_throughput.bench.ts', markers: ['benchmark'] })
 * // => 'bench_throughput.bench.ts: marker expression "stress" selects no tests (0 of 6; file markers: @benchmark); all 6 are reported as skipped'
 */
export function describeSelection(summary: SelectionSummary): string {
  const { expression, selected, total } = summary;
  const prefix = summary.scope === undefined ? '' : `${summary.scope}: `;
  const tests = (count: number): string => `${count} ${count === 1 ? 'test' : 'tests'}`;
  if (expression === undefined || expression.trim() === '') return `${prefix}no marker expression: all ${tests(total)} selected`;
  const quoted = `marker expression ${JSON.stringify(expression)}`;
  if (total === 0) return `${prefix}${quoted}: no tests found to select from`;
  if (selected === 0) {
    const own =
      summary.markers === undefined
        ? ''
        : `; ${summary.scope === undefined ? '' : 'file '}markers: ${summary.markers.length === 0 ? 'none' : summary.markers.map((m) => `@${m}`).join(' ')}`;
    return `${prefix}${quoted} selects no tests (0 of ${total}${own}); ${total === 1 ? 'it is' : `all ${total} are`} reported as skipped`;
  }
  if (selected === total) return `${prefix}${quoted} selects all ${tests(total)}`;
  return `${prefix}${quoted} selects ${selected} of ${tests(total)}; ${total - selected} reported as skipped`;
}
