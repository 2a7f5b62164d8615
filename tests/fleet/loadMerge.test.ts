/**
 * `bench load-merge`'s reading of a CI matrix's artifacts: agent files found two levels down as a
 * download lays them out, and refusals that say what disagrees — files of two runs, two files for
 * one agent, fleets of different sizes, no agent that ran.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentFilesUnder, mergePlan } from '../../src/cli/loadMergeCommand';
import { agentFile, workloadOf } from './agentFiles';

const workload = workloadOf({ producers: 2, consumers: 2, queues: 2, rate: 100, duration: '1s' });
const file = (index: number) => agentFile({ index, count: 2, workload, consumed: [] });

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'load-merge-'));
  for (const index of [0, 1]) {
    fs.mkdirSync(path.join(tmp, `fleet-agent-${index}`, `agent-${index}`), { recursive: true });
    fs.writeFileSync(path.join(tmp, `fleet-agent-${index}`, `agent-${index}`, `agent-${index}.json`), JSON.stringify(file(index)));
  }
  fs.writeFileSync(path.join(tmp, 'fleet-agent-0', 'agent-0', 'agent-0.log'), 'not a result');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('bench load-merge', () => {
  test('finds every agent file two levels down, and only those', () => {
    expect(agentFilesUnder(tmp).map((each) => path.relative(tmp, each))).toEqual([
      path.join('fleet-agent-0', 'agent-0', 'agent-0.json'),
      path.join('fleet-agent-1', 'agent-1', 'agent-1.json'),
    ]);
    expect(() => agentFilesUnder(path.join(tmp, 'none'))).toThrow(/does not exist: give the agents' result files or their folders/);
  });

  test('one run of two agents merges', () => {
    expect(mergePlan([file(0), file(1)], ['a', 'b'])).toMatchObject({ runId: 'fleet-test', count: 2 });
  });

  test('refuses what is not one run, saying what disagrees', () => {
    const other = { ...file(1), run_id: 'fleet-other' };
    expect(() => mergePlan([file(0), other], ['a.json', 'b.json'])).toThrow(
      /refusing to merge agents of different runs: fleet-test \(a\.json\); fleet-other \(b\.json\)/,
    );
    expect(() => mergePlan([file(0), file(0)], ['a.json', 'b.json'])).toThrow(/agent 0 has two files \(a\.json, b\.json\): keep one/);
    const bigger = { ...file(1), agent: { ...file(1).agent, count: 3 } };
    expect(() => mergePlan([file(0), bigger], ['a', 'b'])).toThrow(/disagree on the fleet's size \(--agents 2 vs 3\)/);
    const late = { ...file(0), status: 'late' as const, error: 'the start was 900 ms past', result: null };
    expect(() => mergePlan([late], ['a'])).toThrow(/no agent of run fleet-test ran its share: agent 0 late \(the start was 900 ms past\)/);
  });
});
