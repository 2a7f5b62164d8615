/**
 * Code, tests, benchmarks and docs stand alone: they cite nothing a reader of the repository does
 * not have (numbered tracker entries, the documents the project started from, files outside it).
 * The patterns are assembled from parts so that this file does not match itself.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
/** Every folder of the project's own code and prose (src, tests and benchmarks among them), and the top-level README. */
const FOLDERS = [
  'src',
  'tests',
  'benchmarks',
  'docs',
  'fixtures',
  'reporters',
  'scripts',
  'adapters',
  'bin',
  'lib',
  'jest',
  'examples',
  'schemas',
  'workloads',
];
const TOP_LEVEL_FILES = ['README.md'];
const EXTENSIONS = ['.ts', '.js', '.md', '.json', '.hbs', '.py', '.go'];
const POINTS_NOWHERE = new RegExp(['issue [0-9]+', 'the ' + 'seed', "user's " + 'spec', 'ARCHITECTURE' + '\\.md'].join('|'), 'i');

/**
 * Folders the docs build writes (docs/.gitignore): rebuilt from the sources checked here, so left
 * out. As in git, an entry with a slash inside is relative to docs/, one without names a folder at
 * any depth.
 */
const GENERATED = fs
  .readFileSync(path.join(ROOT, 'docs', '.gitignore'), 'utf8')
  .split('\n')
  .filter((line) => line.endsWith('/') && !line.startsWith('#'))
  .map((line) => line.slice(0, -1));

function generated(folder: string): boolean {
  return GENERATED.some((entry) =>
    entry.includes('/')
      ? folder === path.join(ROOT, 'docs', entry)
      : path.basename(folder) === entry && folder.startsWith(path.join(ROOT, 'docs')),
  );
}

function files(folder: string): string[] {
  if (!fs.existsSync(folder) || generated(folder)) return [];
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : files(full);
    return EXTENSIONS.some((extension) => entry.name.endsWith(extension)) ? [full] : [];
  });
}

function pointers(text: string): number[] {
  return text.split('\n').flatMap((line, index) => (POINTS_NOWHERE.test(line) ? [index + 1] : []));
}

describe('comments and docs that stand alone', () => {
  it('cite no tracker numbers and no documents outside the repository', () => {
    const checked = [
      ...FOLDERS.flatMap((folder) => files(path.join(ROOT, folder))),
      ...TOP_LEVEL_FILES.map((file) => path.join(ROOT, file)),
    ];
    // Each folder is really read (a renamed folder would otherwise drop out of the check unnoticed).
    for (const folder of ['src', 'tests', 'benchmarks'])
      expect([folder, checked.some((file) => file.startsWith(path.join(ROOT, folder) + path.sep))]).toEqual([folder, true]);
    const found = checked.flatMap((file) => pointers(fs.readFileSync(file, 'utf8')).map((line) => `${path.relative(ROOT, file)}:${line}`));
    expect(found).toEqual([]);
  }, 30_000);

  it('would find one', () => {
    expect(pointers(['fine', 'as in iss' + 'ue 12', 'from the user' + "'s spec"].join('\n'))).toEqual([2, 3]);
    expect(pointers('a board.ts that exists')).toEqual([]);
  });
});
