/**
 * A reset cycle's hold against the embedded proxy over real sockets: a reset acts on the next data
 * towards the client, so a connection that is quiet through the minimum hold is missed, unless the
 * cycle holds on until every connection open at the injection was reset (its bound).
 */
import { ToxiproxyClient } from '../../src/faults';
import { startResetCycles } from '../../src/realistic/faultCycles';
import { connect, createProxy, pn, Resources, startEmbeddedApi, startPeer, type Client } from '../proxy/helpers';

const resources = new Resources();
afterEach(() => resources.closeAll());

/** Two connections through one entry to an echo peer: one busy (data every 20 ms), one that speaks once, after `quietMs`. */
async function busyAndQuiet(quietMs: number): Promise<{ target: { client: ToxiproxyClient; name: string }; busy: Client; quiet: Client }> {
  const server = await startEmbeddedApi(resources);
  const echo = await startPeer(resources);
  const name = pn('hold');
  const port = await createProxy(server.url, name, echo.address);
  const busy = await connect(resources, port);
  const quiet = await connect(resources, port);
  const ticker = setInterval(() => busy.socket.writable && busy.socket.write('tick'), 20);
  resources.add(() => clearInterval(ticker));
  const speak = setTimeout(() => quiet.socket.writable && quiet.socket.write('once'), quietMs);
  resources.add(() => clearTimeout(speak));
  return { target: { client: new ToxiproxyClient(server.url), name }, busy, quiet };
}

describe('a reset cycle holds until every connection was hit', () => {
  it('resets a connection quiet through the minimum hold, once it carries data within the bound', async () => {
    const { target, busy, quiet } = await busyAndQuiet(400);
    const result = await startResetCycles(target, {
      cycles: 1,
      firstAfterMs: 50,
      intervalMs: 50,
      holdMs: 100,
      untilEveryConnectionHitMs: 2000,
    }).done;
    expect(result.error).toBeUndefined();
    await Promise.all([busy.waitForClose(3000), quiet.waitForClose(3000)]);
    expect([busy.error?.code, quiet.error?.code]).toEqual(['ECONNRESET', 'ECONNRESET']);
    // Held past the minimum, until the quiet one spoke (~400 ms after the start).
    const [cycle] = result.cycles;
    expect(Number(cycle!.removedNs - cycle!.injectedNs) / 1e6).toBeGreaterThanOrEqual(250);
  }, 15_000);

  it('without the bound, lets the quiet connection through untouched (what the bound is for)', async () => {
    const { target, busy, quiet } = await busyAndQuiet(400);
    const result = await startResetCycles(target, { cycles: 1, firstAfterMs: 50, intervalMs: 50, holdMs: 100 }).done;
    expect(result.error).toBeUndefined();
    await busy.waitForClose(3000);
    expect(busy.error?.code).toBe('ECONNRESET');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(quiet.socket.destroyed).toBe(false);
    expect(quiet.error).toBeUndefined();
  }, 15_000);
});
