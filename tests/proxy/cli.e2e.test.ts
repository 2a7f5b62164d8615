/** `bench proxy` (what `npm run proxy` runs): serves the API, prints one line, stops cleanly on SIGINT/SIGTERM. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { call, withTimeout } from './helpers';

const BIN = path.resolve(__dirname, '../../bin/bench.js');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(
  args: string[],
  stdin: 'ignore' | 'pipe' = 'ignore',
): { child: ChildProcess; firstLine: Promise<string>; exit: Promise<number | null>; output: () => string } {
  const child = spawn('node', [BIN, 'proxy', ...args], { stdio: [stdin, 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      stdout += data.toString();
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error(`bench proxy exited early: ${stderr}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine: withTimeout(firstLine, 20_000, 'no URL line'), exit, output: () => stdout + stderr };
}

describe('bench proxy', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'prints one line with the URL, serves the API, and exits 0 on %s',
    async (signal) => {
      const cli = startCli(['--host', '127.0.0.1', '--port', '0']);
      const line = await cli.firstLine;
      const url = /(http:\/\/127\.0\.0\.1:(\d+))/.exec(line)?.[1];
      expect(url).toBeDefined();
      expect(url).not.toMatch(/:0$/);
      expect((await call(url!, 'GET', '/version')).status).toBe(200);
      expect((await call(url!, 'POST', '/proxies', { name: 'x', listen: '127.0.0.1:0', upstream: '127.0.0.1:5672' })).status).toBe(201);
      cli.child.kill(signal);
      expect(await withTimeout(cli.exit, 10_000, 'did not stop')).toBe(0);
      expect(cli.output().trim().split('\n')).toHaveLength(1);
    },
    30_000,
  );

  // How the harness starts it: stdin a pipe it holds. Reading stdin kept the process alive after
  // SIGTERM until the harness's SIGKILL five seconds later, at the end of every run.
  it('with --exit-with-stdin, exits 0 at once on SIGTERM while stdin is still open, and when stdin closes', async () => {
    const flags = ['--host', '127.0.0.1', '--port', '0', '--exit-with-stdin'];
    const signalled = startCli(flags, 'pipe');
    await signalled.firstLine;
    signalled.child.kill('SIGTERM');
    expect(await withTimeout(signalled.exit, 2_000, 'did not stop within 2 s of SIGTERM')).toBe(0);
    const orphaned = startCli(flags, 'pipe');
    await orphaned.firstLine;
    orphaned.child.stdin!.end();
    expect(await withTimeout(orphaned.exit, 2_000, 'did not stop within 2 s of stdin closing')).toBe(0);
  }, 30_000);

  it('stops with exit code 2 and one line on a bad port', async () => {
    const failure = await promisify(execFile)('node', [BIN, 'proxy', '--port', 'eighty'], { timeout: 20_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect('code' in failure && failure.code).toBe(2);
    expect((failure as { stderr: string }).stderr.trim()).toBe(
      'bench: --port must be a port from 0 to 65535 (0 picks a free one); got "eighty"',
    );
  }, 30_000);
});
