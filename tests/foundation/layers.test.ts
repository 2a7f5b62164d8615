/**
 * Layers only look down (docs/contributing.md, "The project's layout"): suites are siblings and share code through
 * src/suite-kit/; results (storage and verdicts) never reach up into the report or the pipeline;
 * the pipeline (src/run/) sits above both; the reporter never imports the CLI; measuring and the
 * configuration import nothing of results. A pure scan of every import (TypeScript's own reader),
 * so a new upward import fails here, naming the file and the import.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

import { SUITES as SUITE_DESCRIPTORS } from '../../src/scenarios/catalogue';

const ROOT = path.resolve(__dirname, '../..');

/** One folder per suite under src/ (the catalogue's suites that have code of their own): none may import another. */
const SUITES = SUITE_DESCRIPTORS.filter((suite) => suite.folder).map((suite) => suite.name);

interface Rule {
  /** Files the rule is about (project-relative, `/` separators). */
  readonly from: (file: string) => boolean;
  /** What they must not import (project-relative target, no extension). */
  readonly forbidden: (target: string, file: string) => boolean;
  readonly why: string;
}

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`);
const folderOf = (file: string): string | undefined => /^src\/([^/]+)\//.exec(file)?.[1];

const RULES: readonly Rule[] = [
  {
    from: under('src/results'),
    forbidden: (target) => ['src/report', 'src/run', 'src/cli'].some((above) => target.startsWith(`${above}/`)),
    why: 'results is storage and verdicts; the pipeline (src/run) and the report sit above it',
  },
  {
    from: under('src/report'),
    forbidden: (target) => ['src/run', 'src/cli'].some((above) => target.startsWith(`${above}/`)),
    why: 'the report is rendered by the pipeline, never the other way round',
  },
  {
    from: under('reporters'),
    forbidden: (target) => target.startsWith('src/cli/'),
    why: 'the reporter hands the run to src/run, as the CLI does',
  },
  {
    from: (file) => file.startsWith('src/measure/') || file === 'src/config.ts',
    forbidden: (target) => target.startsWith('src/results/'),
    why: 'measuring and the configuration sit below results',
  },
  {
    from: (file) => SUITES.includes(folderOf(file) ?? ''),
    forbidden: (target, file) => {
      const own = folderOf(file);
      const other = folderOf(target);
      return other !== undefined && other !== own && SUITES.includes(other);
    },
    why: 'suites are siblings: what two suites share goes into src/suite-kit/',
  },
  {
    from: (file) => ['src/suite-kit', 'src/faults', 'src/client', 'src/scenarios'].some((low) => file.startsWith(`${low}/`)),
    forbidden: (target) =>
      SUITES.includes(folderOf(target) ?? '') || ['src/report', 'src/run', 'src/cli'].some((above) => target.startsWith(`${above}/`)),
    why: 'shared suite code, the fault model, the clients and the scenario descriptors sit below every suite',
  },
];

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (/\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

const relative = (absolute: string) => path.relative(ROOT, absolute).split(path.sep).join('/');

/** Project-relative targets (no extension) of a file's relative imports. */
function importTargets(absolute: string): string[] {
  return ts
    .preProcessFile(fs.readFileSync(absolute, 'utf8'), true, true)
    .importedFiles.map((reference) => reference.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(path.resolve(path.dirname(absolute), specifier)).replace(/\.(ts|js)$/, ''));
}

function violations(): string[] {
  const found: string[] = [];
  for (const absolute of [...sourceFiles(path.join(ROOT, 'src')), ...sourceFiles(path.join(ROOT, 'reporters'))]) {
    const file = relative(absolute);
    for (const target of importTargets(absolute)) {
      for (const rule of RULES) {
        if (rule.from(file) && rule.forbidden(target, file)) found.push(`${file} imports ${target}: ${rule.why}`);
      }
    }
  }
  return found;
}

describe('layers only look down', () => {
  it("knows every suite's folder from the catalogue", () => {
    expect(SUITES).toEqual(expect.arrayContaining(['recovery', 'throughput', 'realistic', 'stability', 'cluster', 'matrix', 'load']));
    for (const suite of SUITES) expect([suite, fs.existsSync(path.join(ROOT, 'src', suite))]).toEqual([suite, true]);
  });

  it('finds an upward import when there is one (the scan reads relative imports)', () => {
    const absolute = path.join(ROOT, 'src/results/x.ts');
    expect(relative(path.resolve(path.dirname(absolute), '../report/render'))).toBe('src/report/render');
    expect(RULES.some((rule) => rule.from('src/results/x.ts') && rule.forbidden('src/report/render', 'src/results/x.ts'))).toBe(true);
    expect(RULES.some((rule) => rule.from('src/cluster/x.ts') && rule.forbidden('src/realistic/y', 'src/cluster/x.ts'))).toBe(true);
    expect(RULES.some((rule) => rule.from('src/cluster/x.ts') && rule.forbidden('src/suite-kit/y', 'src/cluster/x.ts'))).toBe(false);
  });

  it('holds for every file of src/ and reporters/', () => {
    expect(violations()).toEqual([]);
  });
});
