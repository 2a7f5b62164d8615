import amqp from 'amqplib';
import { BrokerError, describeError } from '../errors';
import { redactUrl } from '../redact';

/**
 * Fails fast (within `boundMs`, never hangs) with one line naming the URL and what to do, when
 * the broker does not complete an AMQP handshake; resolves with the broker's version.
 * @throws BrokerError: not reachable (how to start RabbitMQ), login refused, or vhost refused
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
    throw new BrokerError(brokerProblem(redactUrl(amqpUrl), describeError(error)), { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** A broker that answered but said no needs other advice than one that is not running. */
function brokerProblem(url: string, reason: string): string {
  if (/ACCESS.REFUSED/.test(reason))
    return `RabbitMQ at ${url} refused the login (${reason.replace(/ with message .*/, '')}); check the user and password in AMQP_URL`;
  if (/Expected ConnectionOpenOk/.test(reason))
    return `RabbitMQ at ${url} closed the connection while opening it (${reason}); check that the vhost in AMQP_URL exists and the user may use it`;
  return `RabbitMQ did not answer at ${url} (${reason}); start it with \`rabbitmq-server -detached\` or \`docker compose -f compose.yaml up -d rabbitmq\`, or point AMQP_URL at a running broker`;
}
