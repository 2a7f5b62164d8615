/** Validates data against the repo's JSON schemas (schemas/*.schema.json) with ajv, for tests. */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';

const SCHEMAS = path.resolve(__dirname, '../../schemas');

/** Ajv with every schema of the repo, date-time checked by Date.parse. */
export function schemaValidator(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addFormat('date-time', (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)));
  for (const file of fs.readdirSync(SCHEMAS).filter((name) => name.endsWith('.schema.json'))) {
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, file), 'utf8')));
  }
  return ajv;
}

export function expectValid(schemaFile: string, data: unknown): void {
  const ajv = schemaValidator();
  const validate = ajv.getSchema(`https://amqp-bench.schemas/${schemaFile}`)!;
  expect(validate).toBeDefined();
  const valid = validate(data);
  expect(valid ? [] : validate.errors).toEqual([]);
}

