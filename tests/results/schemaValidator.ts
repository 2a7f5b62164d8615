/** Checks data against the repo's JSON schemas, with the harness's own validator (src/results/schemas.ts). */
import { schemaProblem, type SchemaFile } from '../../src/results/schemas';

export function expectValid(schemaFile: SchemaFile, data: unknown): void {
  expect(schemaProblem(schemaFile, data) ?? 'valid').toBe('valid');
}
