/**
 * The index of raw results written while a reporter listens: each written result is announced
 * once, read once, in the order written; without an index nothing is made, and results written
 * some other way are found by listing the folder. Real files in a temp folder, written by the
 * real writer.
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
    const written = new WrittenResults(dir, 0);
    writeRawResult(publishResult(1, 'plain', 1000), dir);
    writeRawResult(publishResult(2, 'plain', 2000), dir);
    expect(written.takeNew(true).map((result) => result.parameters.threads)).toEqual([1, 2]);
    expect(written.takeNew(false)).toEqual([]);
    writeRawResult(publishResult(3, 'plain', 3000), dir);
    expect(written.takeNew(true).map((result) => result.parameters.threads)).toEqual([3]);
    expect({ filesRead: written.filesRead, listings: written.listings }).toEqual({ filesRead: 3, listings: 0 });
  });

  it('skip what is not a raw result (the end of the run reports it) and wait for a line still being written', () => {
    startResultIndex(dir);
    const written = new WrittenResults(dir, 0);
    fs.writeFileSync(`${dir}/broken_1.json`, '{"name": ');
    announceRawResult(dir, 'broken_1.json');
    announceRawResult(dir, '.jest-outcome.json');
    fs.appendFileSync(resultIndexPath(dir), 'recovery_1.js');
    expect(written.takeNew(false)).toEqual([]);
    expect(written.filesRead).toBe(1);
    fs.writeFileSync(`${dir}/recovery_1.json`, JSON.stringify(rawResult({ name: 'recovery_after_reset_peer', category: 'recovery' })));
    fs.appendFileSync(resultIndexPath(dir), 'on\n');
    expect(written.takeNew(false).map((result) => result.name)).toEqual(['recovery_after_reset_peer']);
  });

  it('make no index when no reporter keeps one', () => {
    writeRawResult(publishResult(1, 'plain', 1000), dir);
    expect(fs.readdirSync(dir).filter((name) => name === RESULT_INDEX_FILE_NAME)).toEqual([]);
  });

  it('written some other way are found by listing when nothing was announced, each read once; those of an earlier run are left', () => {
    const earlier = writeRawResult(publishResult(1, 'plain', 1000), dir);
    fs.utimesSync(earlier, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    startResultIndex(dir);
    const written = new WrittenResults(dir, Date.now() - 1000);
    fs.writeFileSync(`${dir}/publish_throughput_own_1.json`, JSON.stringify(publishResult(2, 'plain', 2000)));
    expect(written.takeNew(false)).toEqual([]);
    expect(written.takeNew(true).map((result) => result.parameters.threads)).toEqual([2]);
    fs.writeFileSync(`${dir}/publish_throughput_own_2.json`, JSON.stringify(publishResult(3, 'plain', 3000)));
    expect(written.takeNew(true).map((result) => result.parameters.threads)).toEqual([3]);
    expect({ filesRead: written.filesRead, listings: written.listings }).toEqual({ filesRead: 2, listings: 2 });
  });
});
