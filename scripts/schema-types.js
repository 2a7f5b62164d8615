#!/usr/bin/env node
'use strict';
/**
 * The JSON schemas in schemas/ are the contract of every file format; the TypeScript types are
 * generated from them, so the two can never disagree. `npm run schemas:types` writes one module
 * per schema into src/schemaTypes/ (`run-archive.schema.json` → `runArchive.ts`, root
 * type `RunArchive`, one named type per `$defs` entry) and an index re-exporting them by name;
 * `--check` (run by `npm run lint`, so by `npm test`) fails when any of them is stale or missing,
 * naming the schema that changed.
 *
 * A `$ref` into another schema (`run-archive.schema.json#/$defs/test_counts`) becomes an import
 * of that schema's named type, so a shared definition is one type, not a structural copy in
 * every module that uses it; such a ref may name a whole schema or one `$defs` entry.
 */
const fs = require('node:fs');
const path = require('node:path');
const { compile } = require('json-schema-to-typescript');
// The standalone build formats as `prettier --check` does and loads inside Jest (the main entry
// loads its ES module with import(), which Jest's module VM refuses), so a unit test can call this.
const prettier = require('prettier/standalone');
const prettierPlugins = [require('prettier/plugins/typescript'), require('prettier/plugins/estree')];

const ROOT = path.resolve(__dirname, '..');
const DEFAULT_DIRS = { schemasDir: path.join(ROOT, 'schemas'), outputDir: path.join(ROOT, 'src', 'schemaTypes') };
const SCHEMA_SUFFIX = '.schema.json';
const INDEX = 'index.ts';

/** `test_counts` → `TestCounts`, `run-archive` → `RunArchive`: what json-schema-to-typescript would name them, made explicit. */
const pascalCase = (text) => text.replace(/(?:^|[-_])([a-z0-9])/g, (_, letter) => letter.toUpperCase());
const camelCase = (text) => pascalCase(text).replace(/^[A-Z]/, (letter) => letter.toLowerCase());

/** Each schema of `schemasDir` (vendor/ holds third-party schemas, not ours): file, $id, module and root type names. */
function loadSchemas(schemasDir) {
  return fs
    .readdirSync(schemasDir)
    .filter((file) => file.endsWith(SCHEMA_SUFFIX))
    .sort()
    .map((file) => {
      const schema = JSON.parse(fs.readFileSync(path.join(schemasDir, file), 'utf8'));
      if (typeof schema.$id !== 'string') throw new Error(`schemas/${file} has no $id: give it one (other schemas refer to it by it)`);
      const base = file.slice(0, -SCHEMA_SUFFIX.length);
      return { file, schema, module: camelCase(base), rootName: pascalCase(base) };
    });
}

/**
 * A copy of `entry.schema` whose refs into other schemas are replaced by the named type they
 * stand for (`tsType`); returns it and the names to import, by module.
 */
function externalizeRefs(entry, byId) {
  const imports = new Map();
  const visit = (node) => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)]));
    if (typeof node.$ref !== 'string' || node.$ref.startsWith('#')) return copy;
    const [address, pointer = ''] = new URL(node.$ref, entry.schema.$id).href.split('#');
    const target = byId.get(address);
    if (target === entry) return { ...copy, $ref: `#${pointer}` };
    if (!target) throw new Error(`schemas/${entry.file}: $ref ${node.$ref} names no schema in schemas/`);
    const defKey = /^\/\$defs\/([^/]+)$/.exec(pointer)?.[1];
    if (pointer !== '' && (defKey === undefined || !(defKey in (target.schema.$defs ?? {})))) {
      throw new Error(`schemas/${entry.file}: $ref ${node.$ref} must name a whole schema or one of its $defs entries`);
    }
    const name = defKey === undefined ? target.rootName : pascalCase(defKey);
    if (!imports.has(target.module)) imports.set(target.module, new Set());
    imports.get(target.module).add(name);
    delete copy.$ref;
    return { ...copy, tsType: name };
  };
  return { schema: visit(entry.schema), imports };
}

function banner(file) {
  return `/**
 * Generated from schemas/${file} by \`npm run schemas:types\`. Do not edit: change the schema
 * and regenerate (\`npm run lint\` and a unit test fail while this file is stale).
 */`;
}

/**
 * With every $defs entry emitted, the library labels each one "referenced by ... via the
 * definition ...", which tells a reader nothing the schema does not; the label goes.
 */
const DEFINITION_LABEL = /(?:\n \* ?)?\n \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\./g;
const EMPTY_COMMENT = /\/\*\*\n \*\/\n/g;

async function format(source) {
  // The project's Prettier settings (standalone Prettier cannot look them up itself).
  const options = JSON.parse(fs.readFileSync(path.join(ROOT, '.prettierrc.json'), 'utf8'));
  return prettier.format(source, { ...options, parser: 'typescript', plugins: prettierPlugins });
}

/** The generated module of one schema (formatted) and the type names it declares. */
async function generateModule(entry, byId) {
  const { schema, imports } = externalizeRefs(entry, byId);
  const body = await compile(schema, entry.rootName, {
    bannerComment: '',
    // Roots may allow extra fields for readers of newer files, but code must not invent them.
    additionalProperties: false,
    customName: (node, defKey) => (node.$id === entry.schema.$id ? entry.rootName : defKey ? pascalCase(defKey) : undefined),
    format: false,
    // Every $defs entry is a named type, so another schema's ref to it has something to import.
    unreachableDefinitions: true,
    $refOptions: { resolve: { external: false } },
  });
  // A ref the library cannot type (inside if/then) leaves its name unused: no import for it.
  const used = (name) => new RegExp(`\\b${name}\\b`).test(body);
  const importLines = [...imports]
    .map(([module, names]) => [module, [...names].filter(used)])
    .filter(([, names]) => names.length > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, names]) => `import type { ${names.sort().join(', ')} } from './${module}';`);
  const declarations = body.replace(DEFINITION_LABEL, '').replace(EMPTY_COMMENT, '');
  const text = await format([banner(entry.file), importLines.join('\n'), declarations].filter(Boolean).join('\n\n'));
  return { text, declared: [...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((match) => match[1]) };
}

/**
 * Every generated module's expected text, by absolute path (the index included).
 * @throws Error when a schema has no $id, a ref names nothing, or two schemas declare the same type name
 */
async function generateSchemaTypes(dirs = DEFAULT_DIRS) {
  const entries = loadSchemas(dirs.schemasDir);
  const byId = new Map(entries.map((entry) => [entry.schema.$id, entry]));
  const files = new Map();
  const owner = new Map();
  const exportLines = [];
  for (const entry of entries) {
    const { text, declared } = await generateModule(entry, byId);
    for (const name of declared) {
      if (owner.has(name))
        throw new Error(`type ${name} is declared by schemas/${owner.get(name)} and schemas/${entry.file}: rename one $defs entry`);
      owner.set(name, entry.file);
    }
    files.set(path.join(dirs.outputDir, `${entry.module}.ts`), { text, schema: entry.file });
    exportLines.push(`export type { ${declared.join(', ')} } from './${entry.module}';`);
  }
  const index = `/**
 * Generated by \`npm run schemas:types\`: every schema's types, by name (one module per schema beside this one).
 */
${exportLines.join('\n')}`;
  files.set(path.join(dirs.outputDir, INDEX), { text: await format(index), schema: null });
  return files;
}

/** What is stale in `outputDir`, one line each naming the schema behind it; empty when all is current. */
async function staleSchemaTypes(dirs = DEFAULT_DIRS) {
  const expected = await generateSchemaTypes(dirs);
  // Named from the project root (the folder that holds schemas/).
  const shown = (filePath) => path.relative(path.dirname(dirs.schemasDir), filePath);
  const problems = [];
  for (const [filePath, { text, schema }] of expected) {
    const current = fs.existsSync(filePath) ? fs.readFileSync(filePath, 'utf8') : undefined;
    if (current === text) continue;
    if (current === undefined)
      problems.push(`${shown(filePath)} is missing (${schema ? `schemas/${schema} has no types yet` : 'no index yet'})`);
    else
      problems.push(
        `${shown(filePath)} is stale (${schema ? `schemas/${schema} changed` : 'a schema or one of its type names was added, removed or renamed'})`,
      );
  }
  for (const orphan of generatedOrphans(dirs.outputDir, expected))
    problems.push(`${shown(orphan)} has no schema any more (removed or renamed)`);
  return problems;
}

/** Modules left from schemas that are gone. */
function generatedOrphans(outputDir, expected) {
  if (!fs.existsSync(outputDir)) return [];
  return fs
    .readdirSync(outputDir)
    .map((name) => path.join(outputDir, name))
    .filter((filePath) => filePath.endsWith('.ts') && !expected.has(filePath));
}

async function writeSchemaTypes(dirs = DEFAULT_DIRS) {
  const expected = await generateSchemaTypes(dirs);
  fs.mkdirSync(dirs.outputDir, { recursive: true });
  for (const orphan of generatedOrphans(dirs.outputDir, expected)) fs.rmSync(orphan);
  for (const [filePath, { text }] of expected) fs.writeFileSync(filePath, text);
  return [...expected.keys()];
}

module.exports = { generateSchemaTypes, staleSchemaTypes, writeSchemaTypes, DEFAULT_DIRS };

if (require.main === module) {
  const check = process.argv.includes('--check');
  (check ? staleSchemaTypes() : writeSchemaTypes()).then(
    (lines) => {
      if (!check) {
        process.stdout.write(`schemas: wrote ${lines.map((filePath) => path.relative(ROOT, filePath)).join(', ')}\n`);
        return;
      }
      for (const line of lines) process.stderr.write(`schemas: ${line}; run \`npm run schemas:types\`\n`);
      if (lines.length > 0) process.exit(1);
    },
    (error) => {
      process.stderr.write(`schemas: ${error.message}\n`);
      process.exit(1);
    },
  );
}
