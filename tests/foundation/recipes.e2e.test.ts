/**
 * The extension recipes of docs/contributing.md hold: in a copy of the project, a new fault kind
 * is one file and one registry entry, a new client library one folder, one registry entry and its
 * package in package.json, a new suite one folder, one descriptor with its catalogue entry and one
 * benchmark file (recipes.files.ts writes them). The test checks that nothing else of the copy
 * changed, then runs them for real through `bench run` (the real broker, the embedded proxy on
 * free ports): the matrix runs a cell of the new fault for the new client, the runner selects the
 * new suite's benchmark, and the report shows both by their descriptors' words.
 *
 * The copy keeps the matrix's benchmark file and the new suite's only (the others would be loaded
 * by Jest for nothing); node_modules is a link to this checkout's.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RawResult } from '../../src/results/rawResult';
import { freePort } from '../support/ports';
import { CLIENT_PACKAGE, clientRecipe, FAULT_RECIPE, MISSING_PACKAGE, SUITE_RECIPE, type Recipe } from './recipes.files';

const ROOT = path.resolve(__dirname, '../..');
/** What a run of the harness reads (tests, docs and the rest are not needed to run it). */
const COPIED = ['bin', 'lib', 'jest', 'src', 'fixtures', 'reporters', 'schemas', 'scripts', 'package.json', 'tsconfig.json'];
const KEPT_BENCHMARK = 'benchmarks/bench_matrix.bench.ts';
/** Bound on each `bench` process; the whole test stays well under the test's own bound. */
const RUN_BOUND_MS = 150_000;

interface Run {
  readonly code: number;
  readonly output: string;
}

let copy: string;
let work: string;

/** Every file below `dir`, project-relative, with its text (node_modules and .cache left out). */
function snapshot(dir: string, base = dir): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.cache') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [file, text] of snapshot(full, base)) found.set(file, text);
    else found.set(path.relative(base, full).split(path.sep).join('/'), fs.readFileSync(full, 'utf8'));
  }
  return found;
}

/** The files added and changed between two snapshots. */
function changes(before: Map<string, string>, after: Map<string, string>): { added: string[]; changed: string[] } {
  const added = [...after.keys()].filter((file) => !before.has(file)).sort();
  const changed = [...after.keys()].filter((file) => before.has(file) && before.get(file) !== after.get(file)).sort();
  return { added, changed };
}

/** Lays `recipe` into the copy: its files, then its registry entry (each anchor must be found once). */
function apply(recipe: Recipe): void {
  for (const [file, text] of Object.entries(recipe.files)) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.writeFileSync(path.join(copy, file), text);
  }
  const { file, importAfter, importLine, entryAfter, entryLine } = recipe.registry;
  let text = fs.readFileSync(path.join(copy, file), 'utf8');
  for (const [anchor, line] of [
    [importAfter, importLine],
    [entryAfter, entryLine],
  ] as const) {
    if (text.split(anchor).length !== 2) throw new Error(`${file}: the recipe's anchor ${JSON.stringify(anchor)} is not there once`);
    text = text.replace(anchor, anchor + line);
  }
  fs.writeFileSync(path.join(copy, file), text);
}

/**
 * `node bin/bench.js <args>` in the copy, bounded. Its raw results and reports stay in the test's
 * folder, its fault proxy is an embedded one on free ports (`proxy: false`: none at all, nothing
 * answering at its URL): it never touches a proxy or a reports folder of another run. The
 * environment's own BENCH_* settings are left out.
 */
async function bench(args: readonly string[], proxy: boolean): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BENCH_') && name !== 'TOXIPROXY_URL'));
  const env = {
    ...base,
    BENCH_RAW_DIR: path.join(work, 'raw'),
    BENCH_REPORTS_DIR: path.join(work, 'reports'),
    TOXIPROXY_URL: `http://127.0.0.1:${await freePort()}`,
    BENCH_PROXY_LISTEN: `127.0.0.1:${await freePort()}`,
    BENCH_EMBEDDED_PROXY: proxy ? 'auto' : 'never',
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(copy, 'bin/bench.js'), ...args],
      { cwd: copy, env, timeout: RUN_BOUND_MS, killSignal: 'SIGKILL', maxBuffer: 20 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

function rawResults(dir: string, name: string): RawResult[] {
  return fs
    .readdirSync(dir)
    .filter((file) => file.startsWith(`${name}_`) && file.endsWith('.json'))
    .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as RawResult);
}

/** What each recipe added and changed in the copy, in the order they were laid in. */
const laid: { added: string[]; changed: string[] }[] = [];

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-recipes-'));
  copy = path.join(work, 'project');
  for (const entry of COPIED) fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  fs.mkdirSync(path.join(copy, 'benchmarks'));
  fs.copyFileSync(path.join(ROOT, KEPT_BENCHMARK), path.join(copy, KEPT_BENCHMARK));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  for (const recipe of [FAULT_RECIPE, clientRecipe(CLIENT_PACKAGE), SUITE_RECIPE]) {
    const before = snapshot(copy);
    apply(recipe);
    laid.push(changes(before, snapshot(copy)));
  }
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the extension recipes', () => {
  it('each adds only the files it promises', () => {
    expect(laid).toEqual([
      { added: ['src/faults/kinds/recipeReset.ts'], changed: ['src/faults/kinds/registry.ts'] },
      { added: ['src/client/recipeClient/library.ts'], changed: ['src/client/registry.ts'] },
      {
        added: ['benchmarks/bench_connect.bench.ts', 'src/connect/measure.ts', 'src/scenarios/connect.ts'],
        changed: ['src/scenarios/catalogue.ts'],
      },
    ]);
    // The client recipe's third part: the library's package is a dependency of the project.
    const manifest = JSON.parse(fs.readFileSync(path.join(copy, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect({ ...manifest.dependencies, ...manifest.devDependencies }).toHaveProperty([CLIENT_PACKAGE]);
  });

  it('a client library waits for its package: named without it, the run says what to install', async () => {
    const library = path.join(copy, 'src/client/recipeClient/library.ts');
    const installed = fs.readFileSync(library, 'utf8');
    fs.writeFileSync(library, clientRecipe(MISSING_PACKAGE).files['src/client/recipeClient/library.ts']!);
    try {
      const run = await bench(['run', '--clients', 'recipe-client'], false);
      // Refused as a bad option (exit 2), before anything runs, saying what to install.
      expect(run.code).toBe(2);
      expect(run.output).toContain(
        `client "recipe-client" cannot run here: it needs the npm package ${MISSING_PACKAGE}: npm install ${MISSING_PACKAGE}`,
      );
    } finally {
      fs.writeFileSync(library, installed);
    }
    const help = await bench(['run', '--help'], false);
    expect(help.output.replace(/\s+/g, ' ')).toMatch(/--clients <list>.* rabbitmq-client, .*recipe-client/);
  }, 60_000);

  it('runs them: a matrix cell of the new fault for the new client, and the new suite, each in the report', async () => {
    const raw = path.join(work, 'raw');
    const reports = path.join(work, 'reports');
    const run = await bench(
      ['run', '-m', 'faults or benchmark', '-t', 'test_fault_recipe_reset|test_connect_time', '--clients', 'recipe-client:normalised'],
      true,
    );
    if (run.code !== 0) throw new Error(`bench run exited ${run.code}\n${run.output.slice(-6000)}`);

    const [cell, ...otherCells] = rawResults(raw, 'fault_matrix_recipe_reset');
    expect(otherCells).toEqual([]);
    expect(cell).toMatchObject({
      category: 'matrix',
      client: { name: 'recipe-client', profile: 'normalised' },
      fault: { kind: 'recipe_reset' },
    });
    expect((cell!.details as { harness_problems: string[] }).harness_problems).toEqual([]);

    const [connect, ...otherConnects] = rawResults(raw, 'connect_time');
    expect(otherConnects).toEqual([]);
    expect(connect).toMatchObject({ category: 'connect', client: { name: 'recipe-client' } });
    expect(connect!.metrics.connect_ms!.value).toBeGreaterThan(0);

    // The report names both in their own words: the fault's label in the matrix, the suite's section by its descriptor's title.
    const report = fs.readFileSync(path.join(reports, 'LATEST_REPORT.md'), 'utf8');
    expect(report).toContain('Recipe reset');
    expect(report).toContain('## Connection set-up results');
  }, 180_000);
});
