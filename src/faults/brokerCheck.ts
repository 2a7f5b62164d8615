import amqp from 'amqplib';
import { BrokerError, describeError } from '../errors';
import { redactUrl } from '../redact';

/**
 * Fails fast (within `boundMs`, never hangs) with one line naming the URL and how to start
 * RabbitMQ, when the broker does not complete an AMQP handshake.
 */
export async function checkBroker(amqpUrl: string, boundMs = 8000): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = amqp.connect(amqpUrl, { timeout: Math.min(5000, boundMs) });
  try {
    const connection = await Promise.race([
      attempt,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${boundMs} ms`)), boundMs);
      }),
    ]);
    const version = connection.connection.serverProperties?.version;
    await connection.close().catch(() => undefined);
    return typeof version === 'string' ? version : null;
  } catch (error) {
    // If the race was lost to the timer, close whatever connects later.
    attempt.then(
      (late) => late.close().catch(() => undefined),
      () => undefined,
    );
    throw new BrokerError(
      `RabbitMQ did not answer at ${redactUrl(amqpUrl)} (${describeError(error)}); start it with \`rabbitmq-server -detached\` or \`docker compose -f compose.yaml up -d rabbitmq\`, or point AMQP_URL at a running broker`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}
