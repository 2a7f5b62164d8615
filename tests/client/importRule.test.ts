/**
 * The client under test is reached only through its folder under src/client/, so every library
 * is measured through the same interface: no other file imports a client library, except the
 * harness's own traffic and admin helpers listed below, each for a reason. A folder imports only
 * the packages its library.ts declares. A pure scan of the sources (TypeScript's own import
 * reader: `import`, `export ... from`, `require()` and `import()`), so a new direct import fails
 * here, naming the file and the way out.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { ClientLibrary } from '../../src/client/api';
import { CLIENT_LIBRARIES as REGISTERED } from '../../src/client/registry';

const ROOT = path.resolve(__dirname, '../..');

/** Every client folder (one with a library.ts) and the library it declares. */
function clientFolders(): Map<string, ClientLibrary> {
  const folders = new Map<string, ClientLibrary>();
  for (const entry of fs.readdirSync(path.join(ROOT, 'src/client'), { withFileTypes: true })) {
    const declaration = path.join(ROOT, 'src/client', entry.name, 'library.ts');
    if (!entry.isDirectory() || !fs.existsSync(declaration)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- every folder's declaration, found by scanning
    const exported = Object.values(require(declaration) as Record<string, unknown>);
    const library = REGISTERED.find((registered) => exported.includes(registered));
    if (library === undefined)
      throw new Error(`src/client/${entry.name}/library.ts is not listed in CLIENT_LIBRARIES (src/client/registry.ts)`);
    folders.set(entry.name, library);
  }
  return folders;
}

const FOLDERS = clientFolders();

/** Every npm package that is a client under test, as the registry's libraries declare them. */
const CLIENT_LIBRARIES = [...new Set(REGISTERED.flatMap((library) => library.packages))];

/** Folders of the project's own code, scanned whole (node_modules and build output excluded). */
const SCANNED = ['src', 'fixtures', 'benchmarks', 'reporters', 'scripts', 'bin', 'tests', 'docs'];

/**
 * Files outside src/client/ that may import amqplib: the harness's side of the broker, never the
 * client under test. Each says why.
 */
const HARNESS_SIDE: Readonly<Record<string, string>> = {
  'src/broker/queueAdmin.ts': 'queue admin: declares, purges and deletes the queues every client then uses',
  'src/recovery/traffic.ts': 'the fanout pulse the recovery threads consume (harness traffic)',
  'src/throughput/publishSessionRuntime.ts': "the publish session's admin connection: the queue, its depth check and purge",
  'src/throughput/loadProducerThread.ts': 'harness producers that keep the sustained-consume queue between its watermarks',
  'src/throughput/queueFill.ts': "the sustained-consume queue's start fill: harness connections that publish its start depth",
  'src/cluster/queues.ts': 'cluster benchmark queue admin (declare, delete on the nodes)',
  'src/faults/brokerCheck.ts': 'the broker check of globalSetup and the preflight',
  'src/matrix/admin.ts': "a fault-matrix cell's topology, the harness's probes and the reading of what is left in each queue",
  'src/broker/actions.ts': "a fault's broker actions: deleting and declaring again the scenario's exchanges and queues",
  'src/environment.ts': "the environment record: the broker's version and amqplib's",
  'src/client/contract/harnessBroker.ts': "the adapter contract's own view of the broker: declares, counts and publishes harness-side",
  'src/fleet/control.ts': "a fleet's control exchange: the coordinator's and agents' own connection for the barrier and the results",
  'benchmarks/proxy/sides.ts':
    "the proxy witness's sides: the fault proxy's cost, direct vs proxied, with one fixed library (not a client comparison)",
};

/**
 * Bare scripts: each library alone, the other side of a harness-overhead check (scripts/bare/ one
 * file per library for publishing; scripts/bare-recovery.js, plain amqplib, for recovery).
 */
const BARE_SCRIPTS = /^scripts\/(bare\/[a-z-]+|bare-recovery)\.js$/;

/**
 * Tests may use amqplib as an independent witness of the broker (declare, count, publish
 * harness-side); tests of the adapters themselves (tests/client/) may reach any library.
 */
function allowedInTests(file: string, library: string): boolean {
  return file.startsWith('tests/client/') || (file.startsWith('tests/') && library === 'amqplib');
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (/\.(ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

/** The client library a module specifier names (`amqplib/lib/channel` -> `amqplib`), or undefined. */
function clientLibraryOf(specifier: string): string | undefined {
  return CLIENT_LIBRARIES.find((library) => specifier === library || specifier.startsWith(`${library}/`));
}

function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((reference) => reference.fileName);
}

function projectFiles(): string[] {
  return SCANNED.filter((dir) => fs.existsSync(path.join(ROOT, dir))).flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
}

describe('which files import a client library', () => {
  it('reads every form of import (so the rule below cannot pass by missing one)', () => {
    const source = [
      "import amqp from 'amqplib';",
      "import type { Options } from 'amqplib/properties';",
      "export { connect } from 'amqp-connection-manager';",
      "const { Connection } = require('rabbitmq-client');",
      "void import('@cloudamqp/amqp-client');",
      "import { x } from './amqplib';",
      "import { y } from 'amqplib-extra';",
    ].join('\n');
    expect(importsOf(source).map(clientLibraryOf)).toEqual([
      'amqplib',
      'amqplib',
      'amqp-connection-manager',
      'rabbitmq-client',
      '@cloudamqp/amqp-client',
      undefined,
      undefined,
    ]);
  });

  it('knows every client folder, and each registered library has one', () => {
    expect([...FOLDERS.values()]).toEqual(expect.arrayContaining([...REGISTERED]));
    expect(FOLDERS.size).toBe(REGISTERED.length);
    expect(CLIENT_LIBRARIES).toEqual(expect.arrayContaining(['amqplib', 'rabbitmq-client']));
    // A folder may import what it declares and nothing else (a cloudamqp file importing amqplib is a violation).
    expect(FOLDERS.get('amqpConnectionManager')?.packages).toEqual(['amqp-connection-manager', 'amqplib']);
    expect(FOLDERS.get('cloudamqp')?.packages).not.toContain('amqplib');
  });

  it('scans the whole project (src/client among it)', () => {
    const files = projectFiles().map((file) => path.relative(ROOT, file).split(path.sep).join('/'));
    expect(files).toEqual(
      expect.arrayContaining([
        'src/client/amqplib/common.ts',
        'src/client/rabbitmqClient/adapter.ts',
        'benchmarks/bench_recovery.bench.ts',
      ]),
    );
    expect(files.length).toBeGreaterThan(200);
  });

  it("is the library's own folder only, besides the harness-side traffic and admin helpers listed here", () => {
    const violations: string[] = [];
    const usedExceptions = new Set<string>();
    for (const absolute of projectFiles()) {
      const file = path.relative(ROOT, absolute).split(path.sep).join('/');
      const folder = /^src\/client\/([^/]+)\//.exec(file)?.[1];
      for (const library of new Set(importsOf(fs.readFileSync(absolute, 'utf8')).flatMap((spec) => clientLibraryOf(spec) ?? []))) {
        if (folder !== undefined && FOLDERS.get(folder)?.packages.includes(library)) continue;
        if (BARE_SCRIPTS.test(file) || allowedInTests(file, library)) continue;
        if (file in HARNESS_SIDE && library === 'amqplib') {
          usedExceptions.add(file);
          continue;
        }
        violations.push(`${file} imports ${library}`);
      }
    }
    // Reach the client under test through src/client (connectClient, the ClientConnection interface),
    // a library through the folder that declares it;
    // a new harness-side helper goes into HARNESS_SIDE with its reason.
    expect(violations).toEqual([]);
    // An exception nobody needs any more is removed, so the list stays the truth.
    expect(Object.keys(HARNESS_SIDE).filter((file) => !usedExceptions.has(file))).toEqual([]);
  });
});
