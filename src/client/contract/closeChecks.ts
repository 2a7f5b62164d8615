/**
 * Closing: politely, within a bound, twice without complaint (the harness's cleanup may close a
 * connection a test already closed), and leaving no connection on the broker — found there by
 * the connection name the harness gave (ConnectOptions.connectionName), as every leak check does.
 */
import { describeError } from '../../errors';
import { listBrokerConnections } from '../../faults/brokerConnections';
import type { ClientConnection } from '../api';
import { ContractViolation, NotChecked, formatDuration, needs, type CheckContext, type ContractCheck } from './types';

/** A close that takes longer is a close that hangs (the adapter's own bound should cut it short well before). */
const CLOSE_BOUND_MS = 10_000;
/** The broker lists a new connection, and drops a closed one, within moments; this is plenty. */
const LISTING_BOUND_MS = 10_000;

interface ClosedConnection {
  readonly name: string;
  /** Whether the broker listed it while open; a string when its list could not be read. */
  readonly listedWhileOpen: boolean | string;
}

const closed = new WeakMap<object, ClosedConnection>();

/** Whether the broker lists `name` (`present`) or not, within the bound; a string when its list cannot be read. */
async function brokerListing(context: CheckContext, name: string, present: boolean): Promise<boolean | string> {
  const deadline = performance.now() + LISTING_BOUND_MS;
  for (;;) {
    let names: readonly string[];
    try {
      names = (await listBrokerConnections(context.brokerUrl)).names;
    } catch (error) {
      return describeError(error);
    }
    if (names.includes(name) === present || performance.now() >= deadline) return names.includes(name);
    await context.sleep(250);
  }
}

async function closeOnce(context: CheckContext, connection: ClientConnection, which: 'first' | 'second'): Promise<void> {
  context.step(`the ${which} close()`);
  try {
    await context.within(
      Promise.resolve().then(() => connection.close()),
      CLOSE_BOUND_MS,
      `the ${which} close()`,
    );
  } catch (error) {
    if (error instanceof ContractViolation)
      throw new ContractViolation(`${error.message}: bound close() (cut the library's close short, then destroy its socket)`);
    throw new ContractViolation(
      `the ${which} close() threw ${JSON.stringify(describeError(error))}${which === 'second' ? ': close() must be safe to call twice' : ''}`,
    );
  }
}

export const closeCheck: ContractCheck = {
  name: 'close()',
  group: 'close',
  boundMs: LISTING_BOUND_MS + 2 * CLOSE_BOUND_MS + 5000,
  async run(context) {
    needs(context, 'connect');
    const name = context.unique('amqp-bench-check-adapter-close');
    context.step('connecting straight to the broker (adapter.connect)');
    const connection = await context.connect('direct', name);
    context.step('opening a publisher');
    await connection.publisher({ confirms: false });
    context.step("looking for the connection in the broker's list");
    closed.set(context.scope, { name, listedWhileOpen: await brokerListing(context, name, true) });
    const startedMs = performance.now();
    await closeOnce(context, connection, 'first');
    const tookMs = performance.now() - startedMs;
    await closeOnce(context, connection, 'second');
    if (connection.state !== 'closed')
      throw new ContractViolation(`after close(), \`state\` says ${JSON.stringify(connection.state)}, not "closed"`);
    return `closed in ${formatDuration(tookMs)}, and again without complaint${
      connection.closeHitBound ? " (closeHitBound: the adapter's bound cut the library's close short, a finding)" : ''
    }`;
  },
};

export const nothingLeftCheck: ContractCheck = {
  name: 'close(): nothing left',
  group: 'close',
  boundMs: LISTING_BOUND_MS + 5000,
  async run(context) {
    const connection = closed.get(context.scope);
    if (connection === undefined) throw new NotChecked('not checked: close() did not get as far as a connection');
    if (typeof connection.listedWhileOpen === 'string') throw new NotChecked(`not checked: ${connection.listedWhileOpen}`);
    if (!connection.listedWhileOpen)
      throw new ContractViolation(
        `while open, the broker listed no connection named "${connection.name}": pass ConnectOptions.connectionName to the library as connection_name (leak checks find the client's connections by it)`,
      );
    context.step(`waiting for the broker to drop "${connection.name}"`);
    const stillListed = await brokerListing(context, connection.name, false);
    if (typeof stillListed === 'string') throw new NotChecked(`not checked: ${stillListed}`);
    if (stillListed)
      throw new ContractViolation(
        `${formatDuration(LISTING_BOUND_MS)} after close(), the broker still lists the connection "${connection.name}": close() leaves it open`,
      );
    return 'the broker listed the connection (by its connectionName) while open, and no more after close()';
  },
};
