/**
 * The unit tier's promise: pure code, no broker, no proxy, no subprocess. This setup file makes
 * the promise checkable: while a unit test file runs, opening a socket, listening, starting a
 * process or a worker thread throws, naming the tier the file belongs in. Restored after the
 * file, since a Jest worker process may run files of other projects next.
 */
import childProcess from 'node:child_process';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

// Pure code is fast: a unit test that needs more than 10 s is in the wrong tier or hangs.
jest.setTimeout(10_000);

const MOVE_IT =
  'unit tests are pure (no sockets, processes or threads): name the file *.int.test.ts (real broker/proxy) or *.e2e.test.ts (subprocess runs)';

type Patch = { target: object; key: string; original: unknown };
const patches: Patch[] = [];

function forbid(target: object, key: string, what: string): void {
  const record = target as Record<string, unknown>;
  patches.push({ target, key, original: record[key] });
  record[key] = () => {
    throw new Error(`${what} in a unit test: ${MOVE_IT}`);
  };
}

// At load, not in beforeAll: the test file (loaded after this) may keep references, e.g. promisify(execFile).
forbid(net.Socket.prototype, 'connect', 'a socket connection');
forbid(net.Server.prototype, 'listen', 'a listening server');
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
  forbid(childProcess, name, `child_process.${name}`);
forbid(workerThreads, 'Worker', 'a worker thread');

afterAll(() => {
  for (const { target, key, original } of patches.splice(0).reverse()) (target as Record<string, unknown>)[key] = original;
});
