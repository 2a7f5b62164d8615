/**
 * A benchmark process's side of a paired run's turns (`bench ab`): before each test and each
 * replicate it asks the coordinator (turnServer.ts) for its turn, and waits. Outside a paired run
 * (BENCH_AB_TURNS unset) every call returns at once, so the harness measures as it always does.
 */
import net from 'node:net';

/** Where the coordinator listens and which side this process is (set by `bench ab` for each side). */
export interface TurnSettings {
  readonly socketPath: string;
  readonly side: 'A' | 'B';
}

/** The paired run this process takes part in, from BENCH_AB_TURNS and BENCH_AB_SIDE; null outside one. */
export function turnSettings(env: NodeJS.ProcessEnv = process.env): TurnSettings | null {
  const socketPath = env.BENCH_AB_TURNS;
  if (!socketPath) return null;
  const side = env.BENCH_AB_SIDE;
  if (side !== 'A' && side !== 'B')
    throw new Error(`BENCH_AB_SIDE must be A or B in a paired run (BENCH_AB_TURNS is set); got "${side ?? ''}"`);
  return { socketPath, side };
}

/** The test this process is in (set by the per-test hook), for the coordinator's progress lines. */
let currentTest = '';

/**
 * Waits for this side's next turn (and ends its previous one).
 * @param label what the turn is for: `test <name>`, `replicate 2 of 6`
 * @throws Error when the coordinator is gone or refuses the request
 */
export async function takeTurn(label: string, settings: TurnSettings | null = turnSettings()): Promise<void> {
  if (!settings) return;
  await ask(settings, 'turn', currentTest && !label.startsWith('test ') ? `${currentTest} ${label}` : label);
}

/** Waits for this side's turn at the start of a test, and remembers the test for later labels. */
export async function takeTestTurn(testName: string, settings: TurnSettings | null = turnSettings()): Promise<void> {
  currentTest = testName;
  await takeTurn(`test ${testName}`, settings);
}

/** This side has finished measuring: waits until the other has too (their teardowns never overlap the other's turns). */
export async function finishTurns(settings: TurnSettings | null = turnSettings()): Promise<void> {
  if (!settings) return;
  await ask(settings, 'end', 'end');
}

function ask(settings: TurnSettings, kind: 'turn' | 'end', label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(settings.socketPath);
    let answer = '';
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ side: settings.side, kind, label })}\n`));
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (!answer.includes('\n')) return;
      const reply = JSON.parse(answer.slice(0, answer.indexOf('\n'))) as { go?: boolean; error?: string };
      settle(reply.go ? undefined : new Error(`the paired run's coordinator refused the turn: ${reply.error ?? answer.trim()}`));
    });
    socket.on('error', (error) =>
      settle(new Error(`the paired run's coordinator at ${settings.socketPath} cannot be reached: ${error.message}`)),
    );
    socket.on('close', () =>
      settle(new Error(`the paired run's coordinator closed the connection before "${label}" got its turn (bench ab stopped)`)),
    );
  });
}
