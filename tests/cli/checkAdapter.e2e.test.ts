/**
 * `bench check-adapter` through the real CLI (bin/bench.js, and the installed command
 * bin/amqp-bench.js started in the adapter's folder), on the real broker: the output a user
 * reads, the exit codes (0 no check failed, findings of the client said, 1 a check failed, 2 a
 * module that cannot be used), one line for a bad module, and no password anywhere.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.join(ROOT, 'tests/fixtures/adapters');

function cli(bin: 'bench.js' | 'amqp-bench.js', args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  // The installed command resolves modules from where it starts: no inherited BENCH_WORK_DIR.
  const env = { ...process.env, BENCH_WORK_DIR: '' };
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin', bin), ...args], { cwd, env, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('bench check-adapter (the real CLI, the real broker)', () => {
  it('a good adapter module: one line per check, all passed or not checked here, exit 0', async () => {
    const { code, stdout, stderr } = await cli('bench.js', ['check-adapter', 'tests/fixtures/adapters/good.js']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^Checking the adapter "fixture-good" \(defaults\), from tests\/fixtures\/adapters\/good\.js, against amqp:\/\/guest@127\.0\.0\.1:5672 and a fault proxy of its own$/,
    );
    const checks = lines.slice(1, -1);
    expect(checks).toHaveLength(18);
    for (const line of checks) expect(line).toMatch(/^(✅|➖) [^:]+(?:: nothing left)?: \S/);
    expect(checks.filter((line) => line.startsWith('➖'))).toEqual([
      expect.stringMatching(/^➖ onSignal: blocked, unblocked: not checked: .*; --alarm-node starts a RabbitMQ node of its own for it$/),
    ]);
    expect(lines.at(-1)).toMatch(/^fixture-good \(defaults\): 17 passed, 1 not checked: it keeps the contract, in [\d.]+ m?s$/);
    expect(stdout).not.toMatch(/:guest@/);
  }, 120_000);

  it('the installed command, started in the adapter folder: a broken adapter fails its check, exit 1', async () => {
    const { code, stdout } = await cli('amqp-bench.js', ['check-adapter', './close-twice-throws.js', '--profile', 'normalised'], FIXTURES);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^Checking the adapter "fixture-close-twice-throws" \(normalised\), from close-twice-throws\.js,/);
    expect(stdout).toContain(
      '\n❌ close(): the second close() threw "the connection is already closed": close() must be safe to call twice\n',
    );
    expect(stdout.match(/^❌/gm)).toHaveLength(1);
    expect(stdout).toMatch(
      /\nfixture-close-twice-throws \(normalised\): 16 passed, 1 failed, 1 not checked: it does not keep the contract \(close\(\)\), in /,
    );
  }, 120_000);

  it('a client whose confirms never settle: its findings said (❗) with their evidence, the contract kept, exit 0', async () => {
    const { code, stdout, stderr } = await cli('bench.js', ['check-adapter', 'tests/fixtures/adapters/loses-confirms.js']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.match(/^❗ .*$/gm)).toEqual([
      expect.stringMatching(
        /^❗ publish, consume \(auto ack\): a publish with confirms never settled within 5 s, though the broker took the message: a confirm the client never settled, a finding of the client as every suite reports it \(amqplib \d+\.\d+\.\d+\)$/,
      ),
      expect.stringMatching(
        /^❗ publisher after recovery: a confirmed publish on the publisher opened before the reset never settled within 5 s, though/,
      ),
    ]);
    expect(stdout).not.toMatch(/^❌/m);
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^fixture-loses-confirms \(defaults\): 15 passed, 1 not checked, 2 finding\(s\) of the client: it keeps the contract; the client's findings: publish, consume \(auto ack\), publisher after recovery, in [\d.]+ m?s$/,
    );
  }, 120_000);

  it.each([
    [
      'a module that does not exist',
      'tests/fixtures/adapters/missing.js',
      /^bench: check-adapter <module> must be .*the path of an adapter module that exists; got ".*missing\.js"$/,
    ],
    [
      'a module that throws when loaded',
      'tests/fixtures/adapters/throws-on-load.js',
      /^bench: check-adapter <module> must be an adapter module that loads \(it threw: Cannot find module 'amqp-library-not-installed'\); got ".*throws-on-load\.js"$/,
    ],
  ])(
    '%s: one line, exit 2, nothing run',
    async (_what, modulePath, line) => {
      const { code, stdout, stderr } = await cli('bench.js', ['check-adapter', modulePath]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    },
    60_000,
  );

  it('--help says what it checks, the exit codes, and how to call it', async () => {
    const { code, stdout } = await cli('bench.js', ['check-adapter', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: bench check-adapter \[options\] <module>/);
    expect(stdout).toMatch(/--profile <profile>/);
    expect(stdout).toMatch(/Exit code 0 when no check failed, 1 when one did, 2 when the module cannot be loaded/);
    expect(stdout).toMatch(/npx amqp-bench check-adapter \.\/bench\/myClient\.ts/);
  }, 60_000);
});
