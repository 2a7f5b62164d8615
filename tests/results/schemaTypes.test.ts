/**
 * Every schema in schemas/ has its generated types module in src/schemaTypes/, up to date:
 * the check `npm run lint` makes (scripts/schema-types.js --check), here too so that the unit tier
 * fails on a schema edited without `npm run schemas:types`; and the check's messages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './helpers';

// json-schema-to-typescript loads Prettier's main entry, which imports its ES module with import()
// at load and Jest's module VM refuses that; the generator formats with prettier/standalone instead.
jest.mock('prettier', () => ({}));

interface Dirs {
  readonly schemasDir: string;
  readonly outputDir: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../scripts/schema-types.js') as {
  DEFAULT_DIRS: Dirs;
  generateSchemaTypes(dirs?: Dirs): Promise<Map<string, { text: string; schema: string | null }>>;
  staleSchemaTypes(dirs?: Dirs): Promise<string[]>;
  writeSchemaTypes(dirs?: Dirs): Promise<string[]>;
};

const { schemasDir, outputDir } = generator.DEFAULT_DIRS;
const schemaFiles = fs.readdirSync(schemasDir).filter((file) => file.endsWith('.schema.json'));
const scratch: string[] = [];

afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the project's schemas, with its generated types, to change. */
async function copyOfSchemas(): Promise<Dirs & { root: string }> {
  const root = tempDir('schema-types');
  scratch.push(root);
  const dirs = { schemasDir: path.join(root, 'schemas'), outputDir: path.join(root, 'src', 'schemaTypes') };
  fs.mkdirSync(dirs.schemasDir, { recursive: true });
  for (const file of schemaFiles) fs.copyFileSync(path.join(schemasDir, file), path.join(dirs.schemasDir, file));
  await generator.writeSchemaTypes(dirs);
  return { ...dirs, root };
}

/** A schema's JSON, loosely typed: the tests reach into it by the paths they know. */
interface SchemaJson {
  properties: Record<string, Record<string, unknown>>;
  $defs?: Record<string, unknown>;
}

const editJson = (file: string, edit: (schema: SchemaJson) => void) => {
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as SchemaJson;
  edit(schema);
  fs.writeFileSync(file, JSON.stringify(schema, null, 2));
};

describe('types generated from the schemas', () => {
  it('exist for every schema in schemas/, and are up to date', async () => {
    const generated = await generator.generateSchemaTypes();
    expect(schemaFiles).toEqual(
      expect.arrayContaining([
        'raw-result.schema.json',
        'run-archive.schema.json',
        'benchmark-history.schema.json',
        'jest-outcome.schema.json',
      ]),
    );
    expect([...generated.values()].map((module) => module.schema).filter(Boolean)).toEqual([...schemaFiles].sort());
    for (const filePath of generated.keys()) expect(path.dirname(filePath)).toBe(outputDir);
    expect(await generator.staleSchemaTypes()).toEqual([]);
  });

  it('make a ref into another schema an import of its type, not a copy of it', async () => {
    const generated = await generator.generateSchemaTypes();
    const text = (module: string) => generated.get(path.join(outputDir, module))!.text;
    expect(text('benchmarkHistory.ts')).toContain("import type { KeyMetric, RunStatus, TestCounts } from './runArchive';");
    expect(text('benchmarkHistory.ts')).not.toMatch(/export (?:interface|type) (?:KeyMetric|RunStatus|TestCounts)\b/);
    expect(text('jestOutcome.ts')).toContain("import type { SuiteError, TestOutcome } from './runArchive';");
    expect(text('runArchive.ts')).toContain("import type { Direction, RawResult, ResultParameters } from './rawResult';");
    expect(text('index.ts')).toMatch(/export type \{[^}]*\bKeyMetric\b[^}]*\} from '\.\/runArchive';/);
  });

  it('say which schema changed, which has no types yet and which types have no schema', async () => {
    const dirs = await copyOfSchemas();
    editJson(path.join(dirs.schemasDir, 'benchmark-history.schema.json'), (schema) => {
      schema.properties.updated_at!.description = 'When the history was last written.';
    });
    fs.writeFileSync(
      path.join(dirs.schemasDir, 'load-plan.schema.json'),
      JSON.stringify({ $id: 'https://amqp-bench.schemas/load-plan.schema.json', type: 'object', properties: { rate: { type: 'number' } } }),
    );
    fs.writeFileSync(path.join(dirs.outputDir, 'oldFormat.ts'), 'export type OldFormat = string;\n');
    expect(await generator.staleSchemaTypes(dirs)).toEqual([
      'src/schemaTypes/benchmarkHistory.ts is stale (schemas/benchmark-history.schema.json changed)',
      'src/schemaTypes/loadPlan.ts is missing (schemas/load-plan.schema.json has no types yet)',
      'src/schemaTypes/index.ts is stale (a schema or one of its type names was added, removed or renamed)',
      'src/schemaTypes/oldFormat.ts has no schema any more (removed or renamed)',
    ]);
    await generator.writeSchemaTypes(dirs);
    expect(await generator.staleSchemaTypes(dirs)).toEqual([]);
    expect(fs.existsSync(path.join(dirs.outputDir, 'oldFormat.ts'))).toBe(false);
    expect(fs.readFileSync(path.join(dirs.outputDir, 'loadPlan.ts'), 'utf8')).toMatch(
      /export interface LoadPlan \{\n {2}rate\?: number;\n\}/,
    );
  });

  it.each([
    [
      'a ref to no schema',
      'https://amqp-bench.schemas/nowhere.schema.json',
      '$ref https://amqp-bench.schemas/nowhere.schema.json names no schema in schemas/',
    ],
    [
      'a ref into a schema that is not a $defs entry',
      'run-archive.schema.json#/properties/counts',
      '$ref run-archive.schema.json#/properties/counts must name a whole schema or one of its $defs entries',
    ],
    [
      'a ref to a $defs entry that does not exist',
      'run-archive.schema.json#/$defs/nothing',
      '$ref run-archive.schema.json#/$defs/nothing must name a whole schema or one of its $defs entries',
    ],
  ])('refuse %s, naming the schema', async (_label, ref, message) => {
    const dirs = await copyOfSchemas();
    editJson(path.join(dirs.schemasDir, 'jest-outcome.schema.json'), (schema) => {
      schema.properties.counts = { $ref: ref };
    });
    await expect(generator.staleSchemaTypes(dirs)).rejects.toThrow(`schemas/jest-outcome.schema.json: ${message}`);
  });

  it('refuse two schemas that declare the same type name', async () => {
    const dirs = await copyOfSchemas();
    editJson(path.join(dirs.schemasDir, 'jest-outcome.schema.json'), (schema) => {
      schema.$defs = { test_counts: { type: 'object' } };
      schema.properties.counts = { $ref: '#/$defs/test_counts' };
    });
    await expect(generator.staleSchemaTypes(dirs)).rejects.toThrow(
      'type TestCounts is declared by schemas/jest-outcome.schema.json and schemas/run-archive.schema.json: rename one $defs entry',
    );
  });
});
