import { TurnSchedule, type Side } from '../../src/ab/turnSchedule';

/** Drives a schedule: each side asks, and the test records who was let go, in order. */
function harness() {
  let now = 0;
  const schedule = new TurnSchedule(() => (now += 1));
  const went: string[] = [];
  const ask = (side: Side, label: string, kind: 'turn' | 'end' = 'turn') =>
    schedule.request(side, kind, label, () => went.push(`${side} ${label}`));
  return { schedule, went, ask };
}

describe('the turn schedule of a paired run', () => {
  it('waits for both sides to come up, then alternates in A B B A order', () => {
    const { schedule, went, ask } = harness();
    ask('A', 't1');
    expect(went).toEqual([]);
    ask('B', 't1');
    expect(went).toEqual(['A t1']);
    // A asks again: its first turn is over, B's first turn (pair 0, second) goes.
    ask('A', 'r1');
    expect(went).toEqual(['A t1', 'B t1']);
    // Pair 1 is B first: B's next turn goes as soon as it asks, A's waits for it.
    ask('B', 'r1');
    expect(went).toEqual(['A t1', 'B t1', 'B r1']);
    ask('B', 'r2');
    expect(went.slice(3)).toEqual(['A r1']);
    // Pair 2 is A first again.
    ask('A', 'r2');
    expect(went.slice(4)).toEqual(['A r2']);
    ask('A', 'r3');
    expect(went.slice(5)).toEqual(['B r2']);
    expect(schedule.grants().map((grant) => `${grant.sequence}:${grant.side}${grant.turn}`)).toEqual([
      '0:A0',
      '1:B0',
      '2:B1',
      '3:A1',
      '4:A2',
      '5:B2',
    ]);
  });

  it('never lets both sides run at once, whatever the order of their requests', () => {
    // Random interleavings of two sides asking for 8 turns each: at any moment at most one side holds a turn.
    for (let seed = 1; seed <= 200; seed += 1) {
      let random = seed;
      const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const schedule = new TurnSchedule();
      const holding: Record<Side, boolean> = { A: false, B: false };
      const asked: Record<Side, number> = { A: 0, B: 0 };
      const pending: Record<Side, boolean> = { A: false, B: false };
      const order: Side[] = [];
      const ask = (side: Side) => {
        holding[side] = false;
        pending[side] = true;
        asked[side] += 1;
        schedule.request(side, 'turn', String(asked[side]), () => {
          pending[side] = false;
          holding[side] = true;
          order.push(side);
          expect(holding.A && holding.B).toBe(false);
        });
      };
      for (let step = 0; step < 60; step += 1) {
        const side: Side = next() < 0.5 ? 'A' : 'B';
        if (!pending[side] && asked[side] < 8) ask(side);
        else if (!pending[side === 'A' ? 'B' : 'A'] && asked[side === 'A' ? 'B' : 'A'] < 8) ask(side === 'A' ? 'B' : 'A');
      }
      // Whatever ran ran in the A B B A pattern.
      expect(order.join('')).toBe('ABBAABBAABBAABBA'.slice(0, order.length));
    }
  });

  it('lets the other side run on alone once one side has finished or exited', () => {
    const { went, ask } = harness();
    ask('A', 'a0');
    ask('B', 'b0');
    ask('A', 'end', 'end');
    expect(went).toEqual(['A a0', 'B b0']);
    ask('B', 'b1');
    ask('B', 'b2');
    expect(went.slice(2)).toEqual(['B b1', 'B b2']);
    // A waits at the end barrier until B is done too.
    ask('B', 'end', 'end');
    expect(went.slice(4).sort()).toEqual(['A end', 'B end']);

    const second = harness();
    second.ask('A', 'a0');
    second.ask('B', 'b0');
    second.ask('A', 'a1');
    expect(second.went).toEqual(['A a0', 'B b0']);
    // B crashed while holding its turn: A goes on.
    second.schedule.exited('B');
    expect(second.went).toEqual(['A a0', 'B b0', 'A a1']);
  });

  it('refuses a side that asks twice at once, or asks again after its end', () => {
    const { ask } = harness();
    ask('A', 'a0');
    expect(() => ask('A', 'again')).toThrow('side A asked for a turn while it already waits for one ("a0")');
    const second = harness();
    second.ask('A', 'end', 'end');
    second.schedule.exited('A');
    expect(() => second.ask('A', 'late')).toThrow('side A asked for a turn after it had finished');
  });
});
