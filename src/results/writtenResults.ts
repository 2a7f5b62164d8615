/**
 * Which raw results a run has written so far, without listing the raw-results folder: while a
 * benchmark run goes, the reporter keeps an index beside the results, `writeRawResult` appends
 * each file's name to it (one line; nothing when there is no index: no reporter is listening),
 * and the reporter reads only the lines added since it last looked. A look then costs the same at
 * the 200th result as at the 10th, where listing the folder and reading every file again grew
 * with the run (listing alone still does: one name per result already there). The index is a hint for progress lines, never data: the results are the files,
 * which the end of the run (and the recovery of a killed run) collect by listing the folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isRawResultFileName, readRawResultFile } from './collect';
import type { RawResult } from './rawResult';

/** A dot file and not `*.json`: never collected, set aside or archived. */
export const RESULT_INDEX_FILE_NAME = '.raw-results.index';

export function resultIndexPath(rawResultsDir: string): string {
  return path.join(rawResultsDir, RESULT_INDEX_FILE_NAME);
}

/** Starts an empty index (the reporter, before the run's first benchmark file runs). */
export function startResultIndex(rawResultsDir: string): void {
  fs.mkdirSync(rawResultsDir, { recursive: true });
  fs.writeFileSync(resultIndexPath(rawResultsDir), '');
}

export function removeResultIndex(rawResultsDir: string): void {
  fs.rmSync(resultIndexPath(rawResultsDir), { force: true });
}

/** Adds `fileName` (just written into `rawResultsDir`) to the index, if a reporter keeps one. */
export function announceRawResult(rawResultsDir: string, fileName: string): void {
  let fd: number;
  try {
    // No O_CREAT: without an index nobody is listening, and none is made.
    fd = fs.openSync(resultIndexPath(rawResultsDir), fs.constants.O_WRONLY | fs.constants.O_APPEND);
  } catch {
    return;
  }
  try {
    // One write per line: writers in several Jest workers append whole lines, never mixed.
    fs.writeSync(fd, `${fileName}\n`);
  } catch {
    // The result itself is written; only a progress line would miss its figure.
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The raw results written into a folder, read as they come: each file once. Names come from the
 * index; when it announced nothing and the caller expected results (a test that ran), the folder
 * is listed instead, for results written some other way than `writeRawResult` (a benchmark that
 * writes its JSON itself): that look costs a listing, and still reads only the files not seen yet.
 */
export class WrittenResults {
  private offsetBytes = 0;
  private readonly seen = new Set<string>();
  /** Raw result files read so far (each once). */
  filesRead = 0;
  /** Looks that listed the folder (nothing announced). */
  listings = 0;

  constructor(
    private readonly rawResultsDir: string,
    /** Files older than this are an earlier run's (folders a plain `jest` run does not clear). */
    private readonly modifiedSinceMs: number,
  ) {}

  /**
   * The raw results written since the last call, oldest first. A file that is not a raw result is
   * skipped here: the end of the run reports it.
   */
  takeNew(listIfNoneAnnounced: boolean): RawResult[] {
    let names = this.newNames();
    if (names.length === 0 && listIfNoneAnnounced) {
      this.listings += 1;
      names = listFiles(this.rawResultsDir);
    }
    const found: { result: RawResult; name: string }[] = [];
    for (const name of names) {
      if (this.seen.has(name) || !isRawResultFileName(name)) continue;
      this.seen.add(name);
      const read = readRawResultFile(this.rawResultsDir, name, this.modifiedSinceMs);
      if (read.kind !== 'stale') this.filesRead += 1;
      if (read.kind === 'result') found.push({ result: read.result, name });
    }
    found.sort((a, b) => a.result.timestamp.localeCompare(b.result.timestamp) || a.name.localeCompare(b.name));
    return found.map((entry) => entry.result);
  }

  /** Whole lines added to the index since the last call (a line being written waits for the next). */
  private newNames(): string[] {
    let fd: number;
    try {
      fd = fs.openSync(resultIndexPath(this.rawResultsDir), 'r');
    } catch {
      return [];
    }
    try {
      const sizeBytes = fs.fstatSync(fd).size;
      if (sizeBytes <= this.offsetBytes) return [];
      const buffer = Buffer.alloc(sizeBytes - this.offsetBytes);
      const readBytes = fs.readSync(fd, buffer, 0, buffer.length, this.offsetBytes);
      const end = buffer.subarray(0, readBytes).lastIndexOf(0x0a);
      if (end < 0) return [];
      this.offsetBytes += end + 1;
      return buffer
        .subarray(0, end)
        .toString('utf8')
        .split('\n')
        .filter((name) => name !== '');
    } finally {
      fs.closeSync(fd);
    }
  }
}

function listFiles(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
