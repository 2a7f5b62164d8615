#!/usr/bin/env node
'use strict';
/**
 * The raw-result JSON schema is the contract; the TypeScript types are generated from it, so the
 * two can never disagree. `npm run schemas:types` rewrites src/results/schemaTypes.ts;
 * `--check` (run by `npm run lint`, so by `npm test`) fails when the committed file is stale.
 */
const fs = require('node:fs');
const path = require('node:path');
const { compile } = require('json-schema-to-typescript');
const prettier = require('prettier');

const ROOT = path.resolve(__dirname, '..');
const SCHEMA = path.join(ROOT, 'schemas', 'raw-result.schema.json');
const OUTPUT = path.join(ROOT, 'src', 'results', 'schemaTypes.ts');

const BANNER = `/**
 * Generated from schemas/raw-result.schema.json by \`npm run schemas:types\`: do not edit, change
 * the schema and regenerate (a unit test fails while this file is stale).
 */`;

/** The generated module's text, formatted as the project formats code. */
async function generateSchemaTypes() {
  const schema = JSON.parse(fs.readFileSync(SCHEMA, 'utf8'));
  const source = await compile(schema, 'RawResult', {
    bannerComment: BANNER,
    // The root allows extra fields for readers of newer files, but code must not invent them.
    additionalProperties: false,
    customName: (node) => (node.$id === schema.$id ? 'RawResult' : undefined),
    format: false,
    unreachableDefinitions: false,
  });
  const options = (await prettier.resolveConfig(OUTPUT)) ?? {};
  return prettier.format(source, { ...options, filepath: OUTPUT });
}

module.exports = { generateSchemaTypes, OUTPUT };

if (require.main === module) {
  const check = process.argv.includes('--check');
  generateSchemaTypes().then(
    (text) => {
      const shown = path.relative(ROOT, OUTPUT);
      if (!check) {
        fs.writeFileSync(OUTPUT, text);
        process.stdout.write(`schemas: wrote ${shown}\n`);
      } else if (fs.readFileSync(OUTPUT, 'utf8') !== text) {
        process.stderr.write(`schemas: ${shown} is stale (schemas/raw-result.schema.json changed); run \`npm run schemas:types\`\n`);
        process.exit(1);
      }
    },
    (error) => {
      process.stderr.write(`schemas: ${error.message}\n`);
      process.exit(1);
    },
  );
}
