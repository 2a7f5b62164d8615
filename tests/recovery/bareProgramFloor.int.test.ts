/**
 * The recovery harness-overhead check for the clients in other languages (kombu, pika, amqp091-go)
 * on a tiny real run: the real broker, the embedded fault proxy in-process, the harness's threads
 * (one client program per connection) against the client's own bare recovery program (one process
 * per thread, the library alone) through the same scenario. Both sides must hear the RST on every
 * connection, be timed from the RST on their own connection, and recover; the result names the
 * floor it compared with. Skipped, saying how to install them, where scripts/setup-clients.sh has
 * not run.
 */
import { unavailableClients } from '../../src/client/registry';
import { getConfig } from '../../src/config';
import { removeActiveToxics } from '../../src/faults';
import { bareRecoveryProgramOf } from '../../src/recovery/bareProgramConsumers';
import { bareFloorMismatch, measureRecoveryOverhead } from '../../src/recovery/overhead';
import { recoveryOverheadResult } from '../../src/recovery/overheadResult';
import { startEmbeddedProxyEntry, type EmbeddedProxyEntry } from '../support/embeddedProxy';

const THREADS = 2;
const PROGRAM_CLIENTS = [
  { name: 'kombu', floor: /bare_recovery\.py --client kombu, one process per thread/ },
  { name: 'pika', floor: /bare_recovery\.py --client pika, one process per thread/ },
  { name: 'amqp091-go', floor: /^amqp091-client --bare-recovery, one process per thread/ },
] as const;
const missing = new Map(unavailableClients().map(({ name, why }) => [name as string, why]));

describe('the recovery harness-overhead check of the clients in other languages (real broker, embedded proxy)', () => {
  let entry: EmbeddedProxyEntry;

  beforeAll(async () => {
    entry = await startEmbeddedProxyEntry('recovery-overhead-programs');
  });
  afterEach(async () => {
    await removeActiveToxics();
  });
  afterAll(async () => {
    await entry?.close();
  });

  describe.each(PROGRAM_CLIENTS)('$name', ({ name, floor }) => {
    const run = missing.has(name) ? it.skip : it;
    if (missing.has(name)) it(`is skipped here: ${missing.get(name)}`, () => expect(missing.get(name)).toMatch(/setup-clients/));

    run('has a bare floor of its own, in both profiles', () => {
      for (const profile of ['defaults', 'normalised'] as const) {
        expect(bareRecoveryProgramOf({ name })).toBeDefined();
        expect(bareFloorMismatch({ name, profile })).toBeUndefined();
      }
    });

    run(
      'runs the harness and its bare program through the same RST, each connection timed from the RST on its own',
      async () => {
        const client = { name, profile: 'normalised' } as const;
        const outcome = await measureRecoveryOverhead({
          threads: THREADS,
          client,
          proxy: entry.proxy,
          proxiedUrl: entry.proxiedUrl,
          directUrl: getConfig().amqpUrl,
          pairs: 1,
        });
        expect(outcome.bareFloor).toMatch(floor);
        for (const [sideName, side] of Object.entries({ harness: outcome.pairs[0]!.harness, bare: outcome.pairs[0]!.bare })) {
          const { metrics, fault } = side.computed;
          expect({ sideName, failures: side.failures }).toEqual({ sideName, failures: [] });
          // Every connection heard the RST itself (a reset, or a close where the library reads the RST as an end of stream).
          const received = fault.received as Record<string, number>;
          expect({ sideName, heard: (received.reset ?? 0) + (received.closed ?? 0) }).toEqual({ sideName, heard: THREADS });
          expect({ sideName, detected: metrics.threads_detected?.value, recovered: metrics.threads_recovered?.value }).toEqual({
            sideName,
            detected: THREADS,
            recovered: THREADS,
          });
          expect({ sideName, own: metrics.threads_timed_from_own_fault?.value }).toEqual({ sideName, own: THREADS });
          for (const delays of [side.connections.detectionMs, side.connections.recoveryMs, side.connections.removalSignalMs])
            expect({ sideName, delays: delays.map((ms) => typeof ms === 'number' && ms >= 0 && ms < 60_000) }).toEqual({
              sideName,
              delays: [true, true],
            });
        }
        const result = recoveryOverheadResult(outcome);
        expect(result.metrics.connection_detection_p50_ratio_percent?.value).toBeGreaterThan(0);
        expect(result.metrics.connection_recovery_p50_ratio_percent?.value).toBeGreaterThan(0);
        expect(result.notes).toContainEqual(expect.stringMatching(/^bare floor: (\S+ )?(bare_recovery\.py|amqp091-client) /));
      },
      120_000,
    );
  });
});
