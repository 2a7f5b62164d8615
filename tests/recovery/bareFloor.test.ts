/** Which client configurations the recovery bare floor (scripts/bare-recovery.js) is the floor of. */
import fs from 'node:fs';
import { BARE_RECOVERY_SCRIPT } from '../../src/recovery/bareConsumers';
import { BARE_RECOVERY_RETRY_MS, bareFloorMismatch } from '../../src/recovery/overhead';

describe('the recovery bare floor', () => {
  it('is the floor of amqplib with the harness loop in its defaults only, and says why not for the others', () => {
    expect(bareFloorMismatch({ name: 'amqplib', profile: 'defaults' })).toBeUndefined();
    expect(bareFloorMismatch({ name: 'amqplib', profile: 'normalised' })).toBe(
      'the bare floor retries every 10 ms; amqplib (normalised) first retries after 100 ms',
    );
    expect(bareFloorMismatch({ name: 'amqplib-recovery', profile: 'defaults' })).toBe(
      "the bare floor reconnects in its own loop; amqplib-recovery recovers with the library's own",
    );
    expect(bareFloorMismatch({ name: 'rabbitmq-client', profile: 'normalised' })).toBe(
      "the bare floor is plain amqplib; this client's library is rabbitmq-client",
    );
  });

  it('retries as often as the constant says', () => {
    const script = fs.readFileSync(BARE_RECOVERY_SCRIPT, 'utf8');
    expect(script).toContain(`await sleep(${BARE_RECOVERY_RETRY_MS});`);
    expect(script).toContain(`retrying every ${BARE_RECOVERY_RETRY_MS} ms`);
  });
});
