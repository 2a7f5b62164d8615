/** The recorded run and history (tests/report/fixtures), and the report view built from them. */
import fs from 'node:fs';
import path from 'node:path';
import type { RunArchive } from '../../src/results/archive';
import type { History, HistoryEntry } from '../../src/results/history';
import { buildReportView, type ReportInput, type ReportView } from '../../src/report/view';

const FIXTURES = path.join(__dirname, 'fixtures');

export function recordedRun(): RunArchive {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, 'recorded-run.json'), 'utf8')) as RunArchive;
}

/** Both runs of the recorded history, oldest first (the second is recordedRun()). */
export function recordedHistory(): HistoryEntry[] {
  return [...(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'recorded-history.json'), 'utf8')) as History).runs];
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
