/** What a thread's trap keeps of errors nobody handled, and that it lets go of the process when released. */
import { trapUnhandled, unhandledFinding } from '../../src/client/unhandledTrap';

describe('the unhandled-error trap of a client thread', () => {
  it('keeps each unhandled rejection and uncaught exception as a finding, redacted, until released', async () => {
    const before = process.listenerCount('unhandledRejection');
    const trap = trapUnhandled();
    expect(process.listenerCount('unhandledRejection')).toBe(before + 1);
    const orphan = Promise.reject(new Error('write ECONNRESET (amqp://guest:secret@broker:5672)'));
    orphan.catch(() => undefined); // handled here; the event below is what Node emits for an orphan
    process.emit('unhandledRejection', new Error('write ECONNRESET (amqp://guest:secret@broker:5672)'), orphan);
    process.emit('uncaughtException', new Error('boom'));
    expect(trap.trapped).toHaveLength(2);
    expect(trap.trapped[0]).toMatch(/^unhandled rejection: .*write ECONNRESET/);
    expect(trap.trapped[0]).not.toContain('secret');
    expect(trap.trapped[1]).toMatch(/^uncaught exception: .*boom/);
    await trap.release(1);
    expect(process.listenerCount('unhandledRejection')).toBe(before);
  });

  it('says what an application would have seen, only when something was trapped', () => {
    expect(unhandledFinding('producer thread 0', [])).toBeUndefined();
    expect(unhandledFinding('producer thread 0', ['unhandled rejection: AMQPError: write ECONNRESET'])).toBe(
      "producer thread 0: 1 error(s) nobody handled inside the client (an application on Node's defaults would have crashed): unhandled rejection: AMQPError: write ECONNRESET",
    );
  });
});
