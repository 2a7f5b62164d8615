/**
 * The index of raw results written while a reporter listens: each written result is announced
 * once, read once, in the order written; without an index nothing is made. Real files in a temp
 * folder, written by the real writer.
 */
import fs from 'node:fs';
import { writeRawResult } from '../../src/results/rawResult';
import {
  announceRawResult,
  RESULT_INDEX_FILE_NAME,
  resultIndexPath,
  startResultIndex,
  WrittenResults,
} from '../../src/results/writtenResults';
import { publishResult, rawResult, tempDir } from './helpers';

let dir: string;
beforeEach(() => {
  dir = tempDir('written-results');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('raw results written while a reporter listens', () => {
  it('are each read once, in the order written, only the new ones at each look', () => {
    startResultIndex(dir);
    const written = new WrittenResults(dir);
    writeRawResult(publishResult(1, 'plain', 1000), dir);
    writeRawResult(publishResult(2, 'plain', 2000), dir);
    expect(written.takeNew().map((result) => result.parameters.threads)).toEqual([1, 2]);
    expect(written.takeNew()).toEqual([]);
    writeRawResult(publishResult(3, 'plain', 3000), dir);
    expect(written.takeNew().map((result) => result.parameters.threads)).toEqual([3]);
    expect(written.filesRead).toBe(3);
  });

  it('skip what is not a raw result (the end of the run reports it) and wait for a line still being written', () => {
    startResultIndex(dir);
    const written = new WrittenResults(dir);
    fs.writeFileSync(`${dir}/broken_1.json`, '{"name": ');
    announceRawResult(dir, 'broken_1.json');
    announceRawResult(dir, '.jest-outcome.json');
    fs.appendFileSync(resultIndexPath(dir), 'recovery_1.js');
    expect(written.takeNew()).toEqual([]);
    expect(written.filesRead).toBe(1);
    fs.writeFileSync(`${dir}/recovery_1.json`, JSON.stringify(rawResult({ name: 'recovery_after_reset_peer', category: 'recovery' })));
    fs.appendFileSync(resultIndexPath(dir), 'on\n');
    expect(written.takeNew().map((result) => result.name)).toEqual(['recovery_after_reset_peer']);
  });

  it('make no index when no reporter keeps one', () => {
    writeRawResult(publishResult(1, 'plain', 1000), dir);
    expect(fs.readdirSync(dir).filter((name) => name === RESULT_INDEX_FILE_NAME)).toEqual([]);
    expect(new WrittenResults(dir).takeNew()).toEqual([]);
  });
});
