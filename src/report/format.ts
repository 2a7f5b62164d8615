/**
 * How numbers, units, dates and changes read in the report and the terminal summary: thousands
 * separators, precision that follows magnitude, the unit always beside the number.
 */
import dayjs from 'dayjs';
import utc from 'dayjs/plugin/utc';
import { recoveryFigureName } from './metricNames';

dayjs.extend(utc);

const formatters = new Map<number, Intl.NumberFormat>();
function numberFormat(fractionDigits: number): Intl.NumberFormat {
  let formatter = formatters.get(fractionDigits);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', { maximumFractionDigits: fractionDigits });
    formatters.set(fractionDigits, formatter);
  }
  return formatter;
}

/** 45123.4 -> `45,123`; 12.345 -> `12.3`; 2.345 -> `2.35`; 0.01234 -> `0.0123`. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return numberFormat(0).format(value);
  if (magnitude >= 10) return numberFormat(1).format(value);
  if (magnitude >= 1 || magnitude === 0) return numberFormat(2).format(value);
  // Three significant digits for small values, never more than 6 decimals.
  const digits = Math.min(6, 2 - Math.floor(Math.log10(magnitude)));
  return numberFormat(digits).format(value);
}

const UNIT_LABELS: Readonly<Record<string, string>> = { count: '', bytes: 'B', percent: '%' };

/** `45,123 msg/s`, `2.35 ms`, `0.5%`, `12` (count); `—` when there is no value. */
export function formatValue(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined) return '—';
  const label = UNIT_LABELS[unit] ?? unit;
  if (label === '') return formatNumber(value);
  if (label === '%') return `${formatNumber(value)}%`;
  return `${formatNumber(value)} ${label}`;
}

/** `+12.3%`, `-0.4%`, `0.0%`; `—` when unknown. */
export function formatDeltaPercent(delta: number | null): string {
  if (delta === null) return '—';
  const rounded = Math.abs(delta) >= 10 ? delta.toFixed(0) : delta.toFixed(1);
  return `${delta > 0 ? '+' : ''}${rounded}%`;
}

/** `p=0.008`, `p<0.001`; `—` without a test. */
export function formatPValue(pValue: number | null): string {
  if (pValue === null) return '—';
  return pValue < 0.001 ? 'p<0.001' : `p=${pValue.toFixed(3)}`;
}

/** `2025-01-31 23:59:59 UTC`. */
export function formatDate(iso: string): string {
  const date = dayjs.utc(iso);
  return date.isValid() ? date.format('YYYY-MM-DD HH:mm:ss [UTC]') : iso;
}

/** `850 ms`, `12.3 s`, `4 min 12 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const totalSeconds = Math.round(seconds);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes} min ${totalSeconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** 25769803776 -> `24.0 GiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * `consumer_startup_ms` -> `Consumer startup` (the unit is shown with the value); rates keep
 * theirs, so the two throughputs stay apart: `Throughput (msg/s)`, `Throughput (MB/s)`; recovery
 * figures get their one name (`error_detection_latency_ms` -> `Detection (first thread)`).
 */
export function humanizeMetricName(metric: string): string {
  const recovery = recoveryFigureName(metric);
  if (recovery) return recovery;
  const text = metric
    .replace(/_(ms|us|ns|percent|bytes)$/, '')
    .replace(/_msgs_per_sec$/, ' (msg/s)')
    .replace(/_mb_per_sec$/, ' (MB/s)')
    .replace(/_/g, ' ')
    .replace(/\be2e\b/g, 'end-to-end')
    .replace(/\bapi\b/g, 'API');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Escapes what would break a Markdown table cell. */
export function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
