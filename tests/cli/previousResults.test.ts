import fs from 'node:fs';
import path from 'node:path';
import { discardSetAside, restoreSetAside, SET_ASIDE_FOLDER, setAsidePreviousResults } from '../../src/cli/previousResults';
import { RUN_MANIFEST_FILE_NAME } from '../../src/results/runManifest';
import { collectRawResults } from '../../src/results/collect';
import { tempDir } from '../results/helpers';

describe('old raw results set aside during a run', () => {
  let raw: string;
  beforeEach(() => {
    raw = tempDir('aside');
    fs.writeFileSync(path.join(raw, 'publish_throughput_1.json'), '{"a":1}');
    fs.writeFileSync(path.join(raw, '.jest-outcome.json'), '{"old":true}');
    // The outcome's journal goes with the outcome (an interrupted run's tests are in it).
    fs.writeFileSync(path.join(raw, '.jest-outcome.jsonl'), '{"old":"line"}\n');
    fs.writeFileSync(path.join(raw, 'notes.txt'), 'kept');
  });
  afterEach(() => fs.rmSync(raw, { recursive: true, force: true }));

  const listing = () => fs.readdirSync(raw).sort();

  it('are out of sight of collection while the run goes; the run manifest stays where it is', () => {
    fs.writeFileSync(path.join(raw, RUN_MANIFEST_FILE_NAME), '{}');
    expect(setAsidePreviousResults(raw)).toBe(3);
    expect(listing()).toEqual([RUN_MANIFEST_FILE_NAME, SET_ASIDE_FOLDER, 'notes.txt']);
    expect(collectRawResults(raw)).toEqual({ results: [], files: [], invalid: [] });
  });

  it('come back byte for byte when the run ran nothing (over the outcome it wrote); a second restore finds nothing', () => {
    setAsidePreviousResults(raw);
    fs.writeFileSync(path.join(raw, '.jest-outcome.json'), '{"new":true}');
    expect(restoreSetAside(raw)).toBe(3);
    expect(restoreSetAside(raw)).toBe(0);
    expect(listing()).toEqual(['.jest-outcome.json', '.jest-outcome.jsonl', 'notes.txt', 'publish_throughput_1.json']);
    expect(fs.readFileSync(path.join(raw, '.jest-outcome.jsonl'), 'utf8')).toBe('{"old":"line"}\n');
    expect(fs.readFileSync(path.join(raw, '.jest-outcome.json'), 'utf8')).toBe('{"old":true}');
    expect(fs.readFileSync(path.join(raw, 'publish_throughput_1.json'), 'utf8')).toBe('{"a":1}');
  });

  it('are deleted once the run is archived; a set-aside folder already there is never deleted unseen', () => {
    setAsidePreviousResults(raw); // as a run killed while it set them aside: neither restored nor discarded
    fs.writeFileSync(path.join(raw, 'recovery_2.json'), '{}');
    expect(setAsidePreviousResults(raw)).toBe(1);
    expect(fs.readdirSync(path.join(raw, SET_ASIDE_FOLDER)).sort()).toEqual([
      '.jest-outcome.json',
      '.jest-outcome.jsonl',
      'publish_throughput_1.json',
      'recovery_2.json',
    ]);
    expect(discardSetAside(raw)).toBe(4);
    expect(listing()).toEqual(['notes.txt']);
  });
});
