/**
 * A broker action whose call failed (a rabbitmqctl call past its bound on a loaded machine) may
 * still have acted on the broker: its removal undoes it all the same; one never started has nothing
 * to undo. The broker's actions are stand-ins here: a call that fails after acting cannot be made
 * to happen on a real node at will.
 */
import { createFault } from '../../src/faults/kinds/registry';
import type { BrokerActions } from '../../src/faults/model';

/** An alarm's actions that record what was asked, the raising call failing as a timed-out CLI call does. */
function alarmActions(raiseFails: boolean): { broker: BrokerActions; calls: boolean[] } {
  const calls: boolean[] = [];
  const refuse = () => Promise.reject(new Error('not used by an alarm'));
  const broker: BrokerActions = {
    node: 'bench-load@localhost',
    closeConnections: refuse,
    deleteExchange: refuse,
    restoreExchange: refuse,
    deleteQueue: refuse,
    restoreQueue: refuse,
    setMemoryAlarm: async (raised) => {
      calls.push(raised);
      if (raised && raiseFails) throw new Error('`rabbitmqctl set_vm_memory_high_watermark 0` did not finish within 30000 ms');
    },
  };
  return { broker, calls };
}

describe('a broker action’s removal', () => {
  it('undoes an action whose call failed: it may have acted before it was given up on', async () => {
    const { broker, calls } = alarmActions(true);
    const fault = createFault({ kind: 'alarm' }, { broker });
    await expect(fault.inject()).rejects.toThrow(/did not finish within 30000 ms/);
    expect(await fault.remove()).toMatchObject({ method: 'undone', problems: [] });
    expect(calls).toEqual([true, false]);
  });

  it('undoes an action that succeeded, and has nothing to undo for one never started', async () => {
    const done = alarmActions(false);
    const injected = createFault({ kind: 'alarm' }, { broker: done.broker });
    await injected.inject();
    expect(await injected.remove()).toMatchObject({ method: 'undone' });
    expect(done.calls).toEqual([true, false]);

    const never = alarmActions(false);
    expect(await createFault({ kind: 'alarm' }, { broker: never.broker }).remove()).toMatchObject({ method: 'nothing_to_undo' });
    expect(never.calls).toEqual([]);
  });
});
