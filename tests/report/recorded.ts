/** The recorded run and history (tests/report/fixtures), and the report view built from them. */
import fs from 'node:fs';
import path from 'node:path';
import { readRunArchive, type RunArchive } from '../../src/results/archive';
import { upgradeHistoryEntry, type History, type HistoryEntry } from '../../src/results/history';
import { buildReportView, type ReportInput, type ReportView } from '../../src/report/view';

const FIXTURES = path.join(__dirname, 'fixtures');

/** Read as the harness reads an archive (recorded before `mode` became `publish_mode`: read back in today's names). */
export function recordedRun(): RunArchive {
  return readRunArchive(path.join(FIXTURES, 'recorded-run.json'));
}

/** Both runs of the recorded history, oldest first (the second is recordedRun()). */
export function recordedHistory(): HistoryEntry[] {
  return (JSON.parse(fs.readFileSync(path.join(FIXTURES, 'recorded-history.json'), 'utf8')) as History).runs.map(upgradeHistoryEntry);
}

export function recordedView(overrides: Partial<ReportInput> = {}): ReportView {
  return buildReportView({
    archive: recordedRun(),
    archiveFile: 'run_20261122_185548_3271dbb8.json',
    historyRuns: recordedHistory(),
    comparison: null,
    comparisonNote: 'No comparison in this test.',
    thresholdPercent: null,
    regressions: [],
    charts: [],
    generatedAt: new Date('2026-11-22T19:00:00Z'),
    warnings: [],
    ...overrides,
  });
}
