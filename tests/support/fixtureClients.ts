/**
 * Deliberately broken clients (tests/fixtures/adapters/), as the suites run them: each a ClientSpec
 * of an adapter module, loaded in every worker thread that connects, as a user's adapter is.
 */
import path from 'node:path';
import type { ClientSpec } from '../../src/client/api';
import { loadClientModule } from '../../src/client/registry';
import type { RawResult, ResultDraft } from '../../src/results/rawResult';

const ADAPTERS = path.resolve(__dirname, '../fixtures/adapters');

/** The spec of `tests/fixtures/adapters/<file>` (its adapter's own name, the defaults profile). */
export function fixtureClient(file: string): ClientSpec {
  const module = path.join(ADAPTERS, file);
  return { name: loadClientModule(module).name, profile: 'defaults', module };
}

/** What a suite's measure call records, kept in memory (no raw-results folder): the last draft recorded. */
export function draftRecorder(): {
  record: (draft: ResultDraft, progress?: string) => RawResult;
  readonly last: () => ResultDraft | undefined;
} {
  let last: ResultDraft | undefined;
  return {
    record: (draft) => {
      last = draft;
      return { category: 'test', ...draft, schema_version: 1, test_id: 'test', timestamp: new Date().toISOString(), fingerprint: 'f' };
    },
    last: () => last,
  };
}
