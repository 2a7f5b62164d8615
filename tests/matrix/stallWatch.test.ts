/**
 * The stall watch's poll of a library's back-pressure signal (pure, no broker): its state at the
 * first poll that saw the injection and at the last before the removal, the polls before the
 * injection (the ordinary load), and episodes counted only while the stall holds: on before and
 * kept on is no episode, and turning on again after the removal (the ordinary load's coming and
 * going) is not noticing the stall.
 */
import type { Publisher } from '../../src/client/api';
import { MatrixBoard, MatrixControl } from '../../src/matrix/board';
import { StallWatch } from '../../src/matrix/stallWatch';
import { ThreadEvents } from '../../src/matrix/threadEvents';

/** A publisher whose signal is what `states` says, one poll at a time. */
function watchOf(board: MatrixBoard, states: boolean[]): { watch: StallWatch; events: ThreadEvents } {
  let poll = 0;
  const publisher = { writesHeld: () => states[poll++] ?? false } as unknown as Publisher;
  const events = new ThreadEvents(board, 0);
  return { watch: new StallWatch(board, 0, events, publisher), events };
}

describe('the stall watch', () => {
  it('a signal on under the ordinary load and kept on: on at both ends, no episode; on again after the removal is none either', () => {
    const board = new MatrixBoard(1);
    const { watch, events } = watchOf(board, [false, true, true, true, true, true, false, true]);
    for (let poll = 0; poll < 3; poll += 1) watch.tick();
    board.raise(MatrixControl.INJECTED);
    for (let poll = 0; poll < 3; poll += 1) watch.tick();
    board.raise(MatrixControl.REMOVED);
    for (let poll = 0; poll < 2; poll += 1) watch.tick();
    expect(watch.report()).toMatchObject({
      signal: true,
      episodes: 0,
      heldAtInjection: true,
      heldAtRemoval: true,
      pollsBeforeInjection: 3,
      heldPollsBeforeInjection: 2,
    });
    expect(watch.report().longestPollGapMs).toBeGreaterThanOrEqual(0);
    expect(events.events).toEqual([]);
  }, 5000);

  it('a signal off at the injection that turns on while the stall holds: one episode, the thread noticing', () => {
    const board = new MatrixBoard(1);
    const { watch, events } = watchOf(board, [false, false, true, true]);
    watch.tick();
    board.raise(MatrixControl.INJECTED);
    for (let poll = 0; poll < 3; poll += 1) watch.tick();
    expect(watch.report()).toMatchObject({ episodes: 1, heldAtInjection: false, heldAtRemoval: true, pollsBeforeInjection: 1 });
    expect(events.events.map((event) => event.kind)).toEqual(['backpressure']);
  }, 5000);

  it('no poll while the stall held: no states, no gap', () => {
    const board = new MatrixBoard(1);
    const { watch } = watchOf(board, [true]);
    watch.tick();
    expect(watch.report()).toMatchObject({ heldAtInjection: null, heldAtRemoval: null, longestPollGapMs: null });
  }, 5000);
});
