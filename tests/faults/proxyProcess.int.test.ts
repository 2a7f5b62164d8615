import { spawn } from 'node:child_process';
import path from 'node:path';
import { ProxyError } from '../../src/errors';
import { ensureProxyApi, proxyApiAnswers } from '../../src/faults/proxyProcess';
import { freePort } from '../support/ports';

describe('finding or starting the fault proxy (globalSetup)', () => {
  it('starts the embedded proxy in a child process when nothing answers, says so in one line, and stops it', async () => {
    const apiUrl = `http://127.0.0.1:${await freePort()}`;
    const lines: string[] = [];
    const handle = await ensureProxyApi({ proxyApiUrl: apiUrl, embeddedProxy: 'auto', proxyScope: 'shared' }, (line) => lines.push(line));
    try {
      expect(handle.started).toBe(true);
      expect(handle.pid).not.toBe(process.pid);
      expect(lines).toEqual([
        `fault proxy: nothing answered at ${apiUrl}; started the embedded Toxiproxy-compatible proxy there (pid ${handle.pid})`,
      ]);
      expect(await handle.client.version()).toMatch(/^2\./);
      // A second setup finds it and starts nothing.
      const again = await ensureProxyApi({ proxyApiUrl: apiUrl, embeddedProxy: 'auto', proxyScope: 'shared' }, (line) => lines.push(line));
      expect(again.started).toBe(false);
      expect(lines).toHaveLength(1);
    } finally {
      await handle.stop();
    }
    expect(await proxyApiAnswers(apiUrl, 300)).toBe(false);
  }, 40_000);

  it('fails with what to do when nothing answers and the embedded proxy is not allowed', async () => {
    const apiUrl = `http://127.0.0.1:${await freePort()}`;
    const error = await ensureProxyApi({ proxyApiUrl: apiUrl, embeddedProxy: 'never', proxyScope: 'shared' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProxyError);
    expect((error as Error).message).toMatch(/no fault proxy API answers at .* and BENCH_EMBEDDED_PROXY=never; start Toxiproxy/);
  });
});

describe('a proxy started by the harness never outlives it', () => {
  it('exits when the process that started it is killed outright (SIGKILL)', async () => {
    const port = await freePort();
    const script = `
      require('esbuild-register/dist/node').register();
      const { ensureProxyApi } = require(${JSON.stringify(require.resolve('../../src/faults/proxyProcess'))});
      ensureProxyApi({ proxyApiUrl: 'http://127.0.0.1:${port}', embeddedProxy: 'auto', proxyScope: 'shared' }, () => undefined).then((h) => process.stdout.write('started ' + h.pid + '\\n'));
      setInterval(() => undefined, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('proxy did not start within 20 s')), 20_000);
        parent.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('started')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      expect(await proxyApiAnswers(`http://127.0.0.1:${port}`)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
    let answers = true;
    for (let i = 0; i < 50 && answers; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answers = await proxyApiAnswers(`http://127.0.0.1:${port}`, 200);
    }
    expect(answers).toBe(false);
  }, 40_000);
});
