/**
 * A packet capture of the RSTs that leave one port on loopback, by tshark: the independent
 * witness of the proxy's fault moments. Capturing needs root or the `wireshark` group; when it
 * cannot start, the reason comes back in words and nothing is left running.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface RunningCapture {
  /** Stops tshark (after a moment for the last packets) and resolves with what it wrote. */
  stop(): Promise<string>;
}

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/** Starts capturing; resolves once tshark says it is capturing, or with why it could not. */
export function startRstCapture(port: number, outputFile: string): Promise<RunningCapture | { readonly skipped: string }> {
  const loopback = process.platform === 'darwin' ? 'lo0' : 'lo';
  const args = ['-l', '-n', '-i', loopback, '-f', `tcp port ${port} and tcp[tcpflags] & tcp-rst != 0`, '-T', 'fields'];
  args.push('-e', 'frame.time_epoch', '-e', 'tcp.srcport', '-e', 'tcp.dstport');
  const output = fs.openSync(outputFile, 'w');
  const child = spawn('tshark', args, { stdio: ['ignore', output, 'pipe'] });
  fs.closeSync(output);
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve) => {
    const give = (value: RunningCapture | { readonly skipped: string }) => {
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      give({ skipped: `tshark did not start capturing within ${START_TIMEOUT_MS / 1000} s: ${stderr.trim().slice(-300)}` });
    }, START_TIMEOUT_MS);
    child.once('error', (error: NodeJS.ErrnoException) =>
      give({
        skipped:
          error.code === 'ENOENT'
            ? 'tshark is not installed (apt-get install tshark, or pass --no-capture)'
            : `tshark could not start: ${error.message}`,
      }),
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/Capturing on/.test(stderr))
        give({
          stop: async () => {
            // The last RSTs may still be in tshark's buffer: a moment, then an orderly stop.
            await new Promise((wait) => setTimeout(wait, 500));
            child.kill('SIGINT');
            const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
            await exited;
            clearTimeout(killer);
            return fs.readFileSync(outputFile, 'utf8');
          },
        });
    });
    void exited.then(() =>
      give({ skipped: `tshark stopped at once (capturing on loopback needs root or the wireshark group): ${stderr.trim().slice(-300)}` }),
    );
  });
}
