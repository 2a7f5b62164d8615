/**
 * A reports folder with prior content (a report, charts, an archive, a history, junit.xml, raw
 * results and a test outcome), and a byte-for-byte snapshot of a folder tree, to prove that a run
 * which must not touch them left them exactly as they were.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface SeededFolders {
  readonly rawResultsDir: string;
  readonly reportsDir: string;
}

/** Writes earlier-run content under `root` (raw/ and reports/). */
export function seedPriorRun(root: string): SeededFolders {
  const rawResultsDir = path.join(root, 'raw');
  const reportsDir = path.join(root, 'reports');
  fs.mkdirSync(rawResultsDir, { recursive: true });
  fs.mkdirSync(reportsDir, { recursive: true });
  const files: Record<string, string> = {
    [path.join(reportsDir, 'LATEST_REPORT.md')]: '# AMQP client benchmark report\n\n**✅ passed** (an earlier run)\n',
    [path.join(reportsDir, 'chart-recovery-by-scenario.svg')]: '<svg xmlns="http://www.w3.org/2000/svg"><text>recovery</text></svg>',
    [path.join(reportsDir, 'chart-history-trend.svg')]: '<svg xmlns="http://www.w3.org/2000/svg"><text>trend</text></svg>',
    [path.join(reportsDir, 'run_20250131_120000_abcd1234.json')]: '{"run_id":"run_20250131_120000_abcd1234","results":[]}\n',
    [path.join(reportsDir, 'benchmark_history.json')]: '{"schema_version":1,"updated_at":"2025-01-31T12:04:00.000Z","runs":[]}\n',
    [path.join(reportsDir, 'junit.xml')]: '<testsuites name="amqp-bench benchmarks" tests="1"></testsuites>\n',
    [path.join(rawResultsDir, 'recovery_after_reset_peer_20250131_120100_1_1_abcdef.json')]: '{"name":"recovery_after_reset_peer"}\n',
    [path.join(rawResultsDir, '.jest-outcome.json')]: '{"schema_version":1,"tests":[],"suite_errors":[]}\n',
  };
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(file, text);
  return { rawResultsDir, reportsDir };
}

/** Every file and folder under `root` (relative path -> bytes as base64, or `<dir>`). */
export function snapshotTree(root: string): Record<string, string> {
  if (!fs.existsSync(root)) return {};
  const entries = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).sort();
  return Object.fromEntries(
    entries.map((name) => {
      const full = path.join(root, name);
      return [name, fs.statSync(full).isDirectory() ? '<dir>' : fs.readFileSync(full).toString('base64')];
    }),
  );
}
