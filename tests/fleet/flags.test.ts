/**
 * Which part of a fleet a `bench load` process plays, from its flags: each role with what it
 * needs, and each combination that makes no sense refused with what to give instead.
 */
import { resolveFleetMode } from '../../src/cli/loadFleetMode';
import { workloadOf } from './agentFiles';

const workload = workloadOf({ producers: 4, consumers: 4, queues: 4, rate: 5000 });
const mode = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => resolveFleetMode(flags, workload, env);

describe('a fleet from the flags', () => {
  test('no --agents: alone; --agents alone: local agents with a new run id', () => {
    expect(mode({})).toEqual({ kind: 'alone' });
    expect(mode({ agents: '4' })).toMatchObject({
      kind: 'local',
      agents: 4,
      barrierBoundMs: 60_000,
      runId: expect.stringMatching(/^fleet-/),
    });
  });

  test('an agent takes its index from the flag, or from JOB_COMPLETION_INDEX as an Indexed Job sets it', () => {
    expect(mode({ agents: '4', agent: '2', runId: 'r1' })).toMatchObject({
      kind: 'agent',
      index: 2,
      runId: 'r1',
      barrier: { mode: 'coordinator' },
    });
    expect(mode({ agents: '4', agent: true, runId: 'r1' }, { JOB_COMPLETION_INDEX: '3' })).toMatchObject({ kind: 'agent', index: 3 });
    expect(() => mode({ agents: '4', agent: true, runId: 'r1' })).toThrow(
      /--agent must be an index \(--agent 2\), or run where JOB_COMPLETION_INDEX is set/,
    );
    expect(() => mode({ agents: '4', agent: '4', runId: 'r1' })).toThrow(/--agent must be an index from 0 to 3 \(--agents 4\); got "4"/);
  });

  test('an agent without a coordinator starts at a wall-clock time', () => {
    expect(mode({ agents: '2', agent: '0', runId: 'r1', startAt: '2026-11-27T10:00:00Z' })).toMatchObject({
      barrier: { mode: 'start_at', startAtUnixMs: Date.parse('2026-11-27T10:00:00Z') },
    });
    expect(() => mode({ agents: '2', agent: '0', runId: 'r1', startAt: 'soon' })).toThrow(/--start-at must be a wall-clock time/);
    expect(() => mode({ agents: '2', startAt: '2026-11-27T10:00:00Z' })).toThrow(/--start-at must be given with --agent/);
  });

  test('the coordinator and the manifests', () => {
    expect(mode({ agents: '4', coordinate: true, runId: 'r1', linger: '1m' })).toMatchObject({
      kind: 'coordinate',
      barrierBoundMs: 600_000,
      lingerMs: 60_000,
    });
    expect(mode({ agents: '4', emitK8s: 'fleet.yaml' })).toMatchObject({
      kind: 'emit-k8s',
      file: 'fleet.yaml',
      image: 'amqp-bench:0.1.0',
      secretName: 'amqp-bench-broker',
      lingerMs: 3_600_000,
    });
  });

  test('nonsense is refused, saying what to give', () => {
    expect(() => mode({ agent: '0' })).toThrow(/--agent must be given with --agents N \(the fleet it belongs to\); got "without --agents"/);
    expect(() => mode({ runId: 'r1' })).toThrow(/--run-id must be given with --agents N/);
    expect(() => mode({ agents: '4', agent: '0' })).toThrow(
      /--run-id must be given with --agent \(the same id for every agent and the coordinator\)/,
    );
    expect(() => mode({ agents: '4', agent: '0', coordinate: true, runId: 'r' })).toThrow(/--agent must be given alone/);
    expect(() => mode({ agents: 'four' })).toThrow(/--agents must be a whole number ≥ 1; got "four"/);
    expect(() => mode({ agents: '4', runId: 'a b' })).toThrow(/--run-id must be letters, digits/);
    expect(() => mode({ agents: '5' })).toThrow(/--agents must be at most 4/);
  });

  test('a fault on something the agents share is refused; one on each agent’s own connections is taken', () => {
    const shared = workloadOf({ producers: 2, consumers: 2, faults: [{ fault: 'consumer_cancel', at: '1s', length: '1s' }] });
    expect(() => resolveFleetMode({ agents: '2' }, shared, {})).toThrow(
      /consumer_cancel acts on a shared queue: every agent would inject it; run it without --agents/,
    );
    const own = workloadOf({
      producers: 2,
      consumers: 2,
      faults: [
        { fault: 'broker_close', at: '1s', length: '1s' },
        { fault: 'reset_peer', at: '2s', length: '1s' },
      ],
    });
    expect(resolveFleetMode({ agents: '2' }, own, {}).kind).toBe('local');
    const node = workloadOf({ producers: 2, consumers: 2, faults: [{ fault: 'node_kill', at: '1s', length: '1s' }] });
    expect(() => resolveFleetMode({ agents: '2' }, node, {})).toThrow(/node_kill acts on a shared node/);
  });
});
