import fs from 'node:fs';
import path from 'node:path';
import { SET_ASIDE_FOLDER, setAsidePreviousResults } from '../../src/cli/previousResults';
import { collectRawResults } from '../../src/results/collect';
import { tempDir } from '../results/helpers';

describe('old raw results set aside during a run', () => {
  let raw: string;
  beforeEach(() => {
    raw = tempDir('aside');
    fs.writeFileSync(path.join(raw, 'publish_throughput_1.json'), '{"a":1}');
    fs.writeFileSync(path.join(raw, '.jest-outcome.json'), '{"old":true}');
    fs.writeFileSync(path.join(raw, 'notes.txt'), 'kept');
  });
  afterEach(() => fs.rmSync(raw, { recursive: true, force: true }));

  const listing = () => fs.readdirSync(raw).sort();

  it('are out of sight of collection while the run goes', () => {
    const aside = setAsidePreviousResults(raw);
    expect(aside.count).toBe(2);
    expect(listing()).toEqual([SET_ASIDE_FOLDER, 'notes.txt']);
    expect(collectRawResults(raw)).toEqual({ results: [], files: [], invalid: [] });
  });

  it('come back byte for byte when the run ran nothing (over the outcome it wrote)', () => {
    const aside = setAsidePreviousResults(raw);
    fs.writeFileSync(path.join(raw, '.jest-outcome.json'), '{"new":true}');
    aside.restore();
    aside.restore();
    expect(listing()).toEqual(['.jest-outcome.json', 'notes.txt', 'publish_throughput_1.json']);
    expect(fs.readFileSync(path.join(raw, '.jest-outcome.json'), 'utf8')).toBe('{"old":true}');
    expect(fs.readFileSync(path.join(raw, 'publish_throughput_1.json'), 'utf8')).toBe('{"a":1}');
  });

  it('are deleted once the run has run a test; a set-aside folder left by a killed run goes first', () => {
    setAsidePreviousResults(raw); // "killed": neither restored nor discarded
    fs.writeFileSync(path.join(raw, 'recovery_2.json'), '{}');
    const aside = setAsidePreviousResults(raw);
    expect(aside.count).toBe(1);
    expect(fs.readdirSync(path.join(raw, SET_ASIDE_FOLDER))).toEqual(['recovery_2.json']);
    aside.discard();
    expect(listing()).toEqual(['notes.txt']);
  });
});
