/**
 * The three extension recipes of docs/contributing.md, as the files a contributor writes: a fault
 * kind (one file, one registry entry), a client library (one folder, one registry entry, its
 * package in package.json) and a suite (one folder, one descriptor and its catalogue entry, one
 * benchmark file). recipes.e2e.test.ts lays them into a copy of the project and runs them; nothing
 * else in the copy changes, so a recipe that needs more fails there.
 */

/** One registry entry: its import after `importAfter`, its line after `entryAfter` (both must be found). */
export interface RegistryEntry {
  readonly file: string;
  readonly importAfter: string;
  readonly importLine: string;
  readonly entryAfter: string;
  readonly entryLine: string;
}

export interface Recipe {
  /** New files, by project-relative path. */
  readonly files: Readonly<Record<string, string>>;
  /** The one file of the project the recipe changes besides package.json. */
  readonly registry: RegistryEntry;
}

/** A fault kind of its own, made a row of the fault matrix: the proxy resets every client connection. */
export const FAULT_RECIPE: Recipe = {
  files: {
    'src/faults/kinds/recipeReset.ts': `/** \`recipe_reset\`: the proxy resets every client connection (TCP RST) on the next data from the broker. */
import type { FaultDefinition } from '../model';
import { noArgument, required } from './arguments';
import { toxicFault } from './toxicFault';

export const recipeReset: FaultDefinition<Record<string, never>> = {
  kind: 'recipe_reset',
  label: 'Recipe reset',
  layer: 'network',
  broker: 'shared',
  description: 'the proxy resets every client connection on the next data from the broker',
  argument: null,
  defaults: {},
  parse: (argument) => noArgument('recipe_reset', argument, {}),
  acted: (event) => event.kind === 'reset_sent',
  actedWords: 'first RST sent',
  expected: 'reset',
  actsOnData: true,
  matrix: { bounds: () => ({ detectionBoundMs: 5000, recoveryBoundMs: 15_000 }) },
  create(context, options) {
    const proxy = required(context.proxy, this.kind, 'the proxy entry the clients connect through');
    return toxicFault(this, options, {
      proxy,
      armed: true,
      specs: [{ type: 'reset_peer', name: 'recipe_reset_downstream', stream: 'downstream', attributes: { timeout: 0 } }],
    });
  },
};
`,
  },
  registry: {
    file: 'src/faults/kinds/registry.ts',
    importAfter: "import { stopReading } from './stopReading';\n",
    importLine: "import { recipeReset } from './recipeReset';\n",
    entryAfter: '  rollingRestart,\n',
    entryLine: '  recipeReset,\n',
  },
};

/** The npm package the client library measures; package.json must list it (the recipe's third part). */
export const CLIENT_PACKAGE = 'amqplib';
/** A package nothing installs: declared first, to show that a library's clients wait for its package. */
export const MISSING_PACKAGE = 'recipe-amqp-client';

/** A client library of its own: amqplib's recovering connection under the name `recipe-client`. */
export function clientRecipe(packageName: string): Recipe {
  return {
    files: {
      'src/client/recipeClient/library.ts': `/** recipe-client: amqplib's recovering connection, under a name of its own. */
import { defineClientLibrary } from '../api';
import { amqplibFaultWords } from '../amqplib/library';
import type * as Recovery from '../amqplib/recovery';

export const recipeClientLibrary = defineClientLibrary({
  packages: [${JSON.stringify(packageName)}],
  clients: {
    'recipe-client': () => ({ ...(require('../amqplib/recovery') as typeof Recovery).amqplibRecoveryAdapter, name: 'recipe-client' }),
  },
  faultWords: amqplibFaultWords,
});
`,
    },
    registry: {
      file: 'src/client/registry.ts',
      importAfter: "import { pikaLibrary } from './pika/library';\n",
      importLine: "import { recipeClientLibrary } from './recipeClient/library';\n",
      entryAfter: '  amqp091GoLibrary,\n',
      entryLine: '  recipeClientLibrary,\n',
    },
  };
}

/** A suite of its own: how long the client under test takes to open its first connection. */
export const SUITE_RECIPE: Recipe = {
  files: {
    'src/connect/measure.ts': `/** The connect suite: the client under test opening its first connection through the fault proxy, then closing it. */
import type { ClientSpec } from '../client/api';
import { connectClient } from '../client/registry';
import { elapsedMs, nowNs } from '../measure/clock';

export async function measureConnect(client: ClientSpec, url: string): Promise<{ connectMs: number; closeMs: number }> {
  const startedNs = nowNs();
  const connection = await connectClient(client, { urls: [url], connectionName: 'amqp-bench-connect', startBoundMs: 10_000 });
  const connectedNs = nowNs();
  await connection.close();
  return { connectMs: elapsedMs(startedNs, connectedNs), closeMs: elapsedMs(connectedNs, nowNs()) };
}
`,
    'src/scenarios/connect.ts': `/** The connect suite (benchmarks/bench_connect.bench.ts): opening the client's first connection. */
import type { SuiteDescriptor } from './types';

export const CONNECT_SUITE: SuiteDescriptor = {
  name: 'connect',
  title: 'Connection set-up',
  folder: true,
  scenarios: [{ name: 'connect_time', label: 'Time to connect', order: 1, role: 'measurement' }],
};
`,
    'benchmarks/bench_connect.bench.ts': `/**
 * @benchmark
 *
 * The connect suite: the client under test opening its first connection through the fault proxy.
 */
import { benchContext } from '../fixtures/context';
import { clientFields, forEachClient } from '../fixtures/clients';
import { recordResult } from '../fixtures/record';
import { measureConnect } from '../src/connect/measure';
import { msMetric } from '../src/results/metricValues';
import { markedTest } from '../src/testing';

forEachClient((client) =>
  describe('TestConnect', () => {
    markedTest([])(
      'test_connect_time',
      async () => {
        const figures = await measureConnect(client, benchContext().proxiedUrl);
        const fields = clientFields(client);
        recordResult(
          {
            name: 'connect_time',
            parameters: fields.parameters,
            client: fields.client,
            metrics: { connect_ms: msMetric(figures.connectMs), close_ms: msMetric(figures.closeMs) },
          },
          \`connected in \${figures.connectMs.toFixed(1)} ms\`,
        );
        expect(figures.connectMs).toBeGreaterThan(0);
      },
      30_000,
    );
  }),
);
`,
  },
  registry: {
    file: 'src/scenarios/catalogue.ts',
    importAfter: "import { CLUSTER_SUITE } from './cluster';\n",
    importLine: "import { CONNECT_SUITE } from './connect';\n",
    entryAfter: '  PROXY_SUITE,\n',
    entryLine: '  CONNECT_SUITE,\n',
  },
};
