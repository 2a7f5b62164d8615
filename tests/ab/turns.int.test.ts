/**
 * The coordinator and its clients over a real local socket: two sides asking for turns as the
 * benchmark processes of a paired run do, in one process here (their order is the schedule's).
 */
import { finishTurns, takeTurn, type TurnSettings } from '../../src/ab/turnClient';
import { startTurnServer, type TurnServer } from '../../src/ab/turnServer';

describe('paired-run turns over a local socket', () => {
  let server: TurnServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lets the two sides run in A B B A order, one at a time, and holds the first to finish at the end', async () => {
    const granted: string[] = [];
    server = await startTurnServer({ onGrant: (grant) => granted.push(`${grant.side}:${grant.label}`) });
    const running = { A: false, B: false };
    const trace: string[] = [];
    const side = async (name: 'A' | 'B', work: number[]) => {
      const settings: TurnSettings = { socketPath: server!.socketPath, side: name };
      for (const [index, ms] of work.entries()) {
        await takeTurn(`replicate ${index + 1}`, settings);
        running[name] = true;
        trace.push(`${name}${index + 1}${running.A && running.B ? ' overlap' : ''}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        running[name] = false;
      }
      await finishTurns(settings);
      trace.push(`${name} done`);
    };
    // B is slower to start and each side's work takes different times: the order is the schedule's all the same.
    await Promise.all([side('A', [5, 20, 5, 5]), new Promise((resolve) => setTimeout(resolve, 30)).then(() => side('B', [1, 1, 30, 1]))]);
    expect(trace.slice(0, 8)).toEqual(['A1', 'B1', 'B2', 'A2', 'A3', 'B3', 'B4', 'A4']);
    expect(trace.slice(8).sort()).toEqual(['A done', 'B done']);
    expect(granted).toEqual([
      'A:replicate 1',
      'B:replicate 1',
      'B:replicate 2',
      'A:replicate 2',
      'A:replicate 3',
      'B:replicate 3',
      'B:replicate 4',
      'A:replicate 4',
    ]);
  }, 20_000);

  it('goes on with one side when the other exits, and fails a side whose coordinator is gone', async () => {
    server = await startTurnServer();
    const a: TurnSettings = { socketPath: server.socketPath, side: 'A' };
    const waiting = takeTurn('replicate 1', a);
    // B never comes up: its process exited before asking.
    server.exited('B');
    await expect(waiting).resolves.toBeUndefined();
    const stuck = takeTurn('replicate 2', { socketPath: server.socketPath, side: 'A' });
    await expect(stuck).resolves.toBeUndefined();
    const closed = server.close();
    await closed;
    await expect(takeTurn('replicate 3', a)).rejects.toThrow(/the paired run's coordinator at .* cannot be reached/);
  }, 20_000);

  it('answers a malformed request with an error the side sees', async () => {
    const errors: string[] = [];
    server = await startTurnServer({ onError: (message) => errors.push(message) });
    const a: TurnSettings = { socketPath: server.socketPath, side: 'A' };
    const first = takeTurn('one', a);
    await expect(takeTurn('two', a)).rejects.toThrow(
      `the paired run's coordinator refused the turn: side A asked for a turn while it already waits for one`,
    );
    expect(errors).toHaveLength(1);
    server.exited('B');
    await first;
  }, 20_000);
});
