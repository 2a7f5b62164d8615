import type { Command } from 'commander';
import { getConfig } from '../config';
import { captureEnvironment } from '../environment';

/** `bench env`: prints the environment record (with its fingerprint) as JSON. */
export function registerEnvCommand(program: Command): void {
  program
    .command('env')
    .description('print the environment record and its fingerprint as JSON')
    .option('--no-broker', 'do not connect to the broker to read its version')
    .action(async (options: { broker: boolean }) => {
      const config = getConfig();
      const record = await captureEnvironment({
        amqpUrl: options.broker ? config.amqpUrl : undefined,
        faultProxy: { apiUrl: config.proxyApiUrl, embeddedProxy: config.embeddedProxy, scope: config.proxyScope },
      });
      process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    });
}
