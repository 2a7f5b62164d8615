/**
 * Room sizes: no file over 300 lines anywhere in the project's own code (src/, the benchmark
 * files, tests, fixtures, reporters, scripts and the client programs in adapters/), and no
 * function over 80 in src/, so every module can be read in one sitting. Generated code is exempt (src/schemaTypes/, written by scripts/schema-types.js
 * from the JSON schemas). Lines are counted as the file shows them (a function from the line of
 * its first token to the line of its last), with the TypeScript compiler's own parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.join(__dirname, '..', '..', 'src');
const GENERATED = path.join(SRC, 'schemaTypes');
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return full === GENERATED ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

/** Every function (declarations, methods, arrows, accessors) longer than `maxLines`, as `name (lines)`. */
function longFunctions(fileName: string, text: string, maxLines: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      const name = node.name ? node.name.getText(source) : '(anonymous)';
      if (lines > maxLines) found.push(`${name} at line ${first + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const relative = (file: string) => path.relative(path.join(SRC, '..'), file);

/** The files longer than `maxLines`, as `path (lines)`. */
function filesOver(files: readonly string[], maxLines: number): string[] {
  return files.flatMap((file) => {
    const lines = lineCount(fs.readFileSync(file, 'utf8'));
    return lines > maxLines ? [`${relative(file)} (${lines} lines)`] : [];
  });
}

describe('sizes in src/', () => {
  const files = sourceFiles(SRC);

  it('finds the source files and leaves only the generated ones out', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((file) => file.startsWith(GENERATED))).toBe(false);
    expect(files).toContain(path.join(SRC, 'index.ts'));
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => expect(filesOver(files, MAX_FILE_LINES)).toEqual([]), 60_000);

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const over = files.flatMap((file) =>
      longFunctions(file, fs.readFileSync(file, 'utf8'), MAX_FUNCTION_LINES).map((entry) => `${relative(file)}: ${entry}`),
    );
    expect(over).toEqual([]);
  }, 60_000);

  it('counts what it should: a function one line over the bound is found, one at the bound is not', () => {
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, index) => `  const v${index} = ${index};`).join('\n');
    const atBound = `function atBound(): void {\n${body(MAX_FUNCTION_LINES)}\n}\n`;
    const overBound = `class Room {\n  over(): void {\n${body(MAX_FUNCTION_LINES + 1)}\n  }\n}\n`;
    const arrow = `export const arrow = () => {\n${body(MAX_FUNCTION_LINES + 1)}\n};\n`;
    expect(longFunctions('at.ts', atBound, MAX_FUNCTION_LINES)).toEqual([]);
    expect(longFunctions('over.ts', overBound, MAX_FUNCTION_LINES)).toEqual([`over at line 2 (${MAX_FUNCTION_LINES + 1} lines)`]);
    expect(longFunctions('arrow.ts', arrow, MAX_FUNCTION_LINES)).toEqual([`(anonymous) at line 1 (${MAX_FUNCTION_LINES + 1} lines)`]);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
  });
});

/** The project's own code outside src/: every language it is written in, generated code aside. */
const OTHER_ROOMS = ['benchmarks', 'tests', 'fixtures', 'reporters', 'scripts', 'bin', 'jest', 'adapters'];
const CODE = /\.(ts|js|py|go|sh)$/;

function codeFiles(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(full);
    return CODE.test(entry.name) ? [full] : [];
  });
}

describe('sizes outside src/', () => {
  const root = path.join(SRC, '..');
  const files = OTHER_ROOMS.flatMap((folder) => codeFiles(path.join(root, folder)));

  it('finds the benchmark files, the tests and the client programs', () => {
    expect(files).toContain(path.join(root, 'benchmarks', 'bench_throughput.bench.ts'));
    expect(files).toContain(path.join(root, 'tests', 'foundation', 'sizes.test.ts'));
    expect(files).toContain(path.join(root, 'adapters', 'go', 'amqp091_client.go'));
    expect(files).toContain(path.join(root, 'adapters', 'python', 'kombu_client.py'));
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => expect(filesOver(files, MAX_FILE_LINES)).toEqual([]), 60_000);
});
