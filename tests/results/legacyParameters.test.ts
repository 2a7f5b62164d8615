/**
 * Results recorded before `mode` became `publish_mode` read back in today's names, so
 * a new run still compares with the runs before the rename; recovery results keep their old `mode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readRunArchive } from '../../src/results/archive';
import { collectRawResults } from '../../src/results/collect';
import { resultKey } from '../../src/results/compare';
import { readHistory } from '../../src/results/history';
import { upgradeParameters, upgradeResult } from '../../src/results/legacyParameters';
import { publishResult, tempDir } from './helpers';

const FIXTURES = path.join(__dirname, '..', 'report', 'fixtures');

describe('results recorded with older parameter names', () => {
  it('renames the publish mode, in the same key order, and leaves everything else alone', () => {
    const older = { threads: 10, messages_per_thread: 100, message_size_bytes: 256, mode: 'confirm', rounds: 5 };
    const upgraded = upgradeParameters('publish_throughput', older);
    expect(Object.keys(upgraded)).toEqual(['threads', 'messages_per_thread', 'message_size_bytes', 'publish_mode', 'rounds']);
    expect(upgraded.publish_mode).toBe('confirm');
    expect(upgradeParameters('harness_overhead', { mode: 'plain', threads: 1 })).toEqual({ publish_mode: 'plain', threads: 1 });
    // Recovery results' `mode` was the client mode: not a publish mode, not renamed.
    const recovery = { threads: 10, mode: 'manual' };
    expect(upgradeParameters('recovery_after_reset_peer', recovery)).toBe(recovery);
    // Already in today's names, or not a publish mode: untouched.
    const today = { threads: 10, publish_mode: 'plain' };
    expect(upgradeParameters('publish_throughput', today)).toBe(today);
    expect(upgradeParameters('publish_throughput', { mode: 'other' })).toEqual({ mode: 'other' });
    expect(upgradeResult({ result_name: 'publish_throughput', parameters: { mode: 'plain' } }).parameters).toEqual({
      publish_mode: 'plain',
    });
  });

  it('gives an older publish result the identity of a new one, wherever results are read back', () => {
    const current = publishResult(100, 'plain', 60_000);
    const { publish_mode: mode, ...rest } = current.parameters;
    const older = { ...current, parameters: { ...rest, mode: mode! } };
    expect(resultKey(older)).not.toBe(resultKey(current));

    const dir = tempDir('legacy');
    // A raw result left by an older version.
    fs.writeFileSync(path.join(dir, 'publish_throughput_older.json'), JSON.stringify(older));
    const [collected] = collectRawResults(dir).results;
    expect(resultKey(collected!)).toBe(resultKey(current));

    // The recorded archive and history (both written before the rename).
    const archive = readRunArchive(path.join(FIXTURES, 'recorded-run.json'));
    const publish = archive.results.filter((result) => result.name === 'publish_throughput');
    expect(publish.length).toBeGreaterThan(0);
    for (const result of publish) {
      expect(result.parameters).not.toHaveProperty('mode');
      expect(['plain', 'confirm']).toContain(result.parameters.publish_mode);
    }
    fs.copyFileSync(path.join(FIXTURES, 'recorded-history.json'), path.join(dir, 'benchmark_history.json'));
    const peak = readHistory(dir)
      .history.runs.flatMap((run) => run.key_metrics)
      .filter((metric) => metric.id === 'peak_publish_throughput');
    expect(peak.length).toBeGreaterThan(0);
    for (const metric of peak) expect(metric.parameters).toMatchObject({ publish_mode: 'plain' });
    // The recovery key metrics keep their own (older) mode.
    const recovery = readHistory(dir)
      .history.runs.flatMap((run) => run.key_metrics)
      .find((metric) => metric.id === 'rst_detection');
    expect(recovery?.parameters).toMatchObject({ mode: 'manual' });
  });
});
