/**
 * The smallest change the comparison calls a change, per metric family. A significant test
 * alone is not enough on a shared machine: replicates within one run share that run's
 * conditions, so a run that is a little slower overall can differ "significantly" from the
 * previous one without any change in the code. A verdict therefore also needs the change to be
 * larger than the metric's own run-to-run noise: learned from the history when it holds enough
 * runs of the baseline's build (src/measure/predictionInterval.ts `noiseBandPercent`), else the
 * family's configured default below. Settings come from BENCH_MIN_EFFECTS (inline JSON or a
 * JSON file), validated once at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors';
import type { Direction } from './results/rawResult';

export const METRIC_FAMILIES = ['throughput', 'latency', 'recovery', 'counts'] as const;
/** `throughput`: rates and their ratios; `latency`: times of traffic; `recovery`: times of fault scenarios; `counts`: errors, losses, events. */
export type MetricFamily = (typeof METRIC_FAMILIES)[number];

export interface FamilyMinimumEffect {
  /** Smallest change, in % of the baseline, when the history cannot teach one. */
  readonly relativePercent: number;
  /** Smallest change in the metric's own unit, always (a resolution floor: 1 count, 0.01 ms). */
  readonly absolute: number;
}

export interface MinimumEffects {
  readonly families: Readonly<Record<MetricFamily, FamilyMinimumEffect>>;
  /**
   * The same for paired runs (`bench ab`): the two builds alternate in one run, so the machine's
   * drift between runs, which the families' minimums must cover, cancels within each pair; what
   * is left is how small a change is worth a red gate.
   */
  readonly paired: Readonly<Record<MetricFamily, FamilyMinimumEffect>>;
  /** Baseline runs (same fingerprint, passed) needed to learn a metric's minimum effect from their spread; 0 never learns. @default 3 */
  readonly learnFromRuns: number;
  /** The latest baseline runs of the history that count (for learning and for the history test). @default 10 */
  readonly historyRuns: number;
}

/**
 * Defaults for a 2-core machine shared with the broker, where quick runs of unchanged code
 * differ by 10-20% in throughput and more in tail latencies.
 */
export const DEFAULT_MINIMUM_EFFECTS: MinimumEffects = Object.freeze({
  families: Object.freeze({
    /** @default 20% */
    throughput: Object.freeze({ relativePercent: 20, absolute: 0 }),
    /** @default 30%, and at least 0.01 ms (latencies of microseconds are quantized) */
    latency: Object.freeze({ relativePercent: 30, absolute: 0.01 }),
    /** @default 30%, and at least 1 ms */
    recovery: Object.freeze({ relativePercent: 30, absolute: 1 }),
    /** @default 50%, and at least 1 */
    counts: Object.freeze({ relativePercent: 50, absolute: 1 }),
  }),
  paired: Object.freeze({
    /** @default 5% */
    throughput: Object.freeze({ relativePercent: 5, absolute: 0 }),
    /** @default 10%, and at least 0.01 ms */
    latency: Object.freeze({ relativePercent: 10, absolute: 0.01 }),
    /** @default 10%, and at least 1 ms */
    recovery: Object.freeze({ relativePercent: 10, absolute: 1 }),
    /** @default 50%, and at least 1 */
    counts: Object.freeze({ relativePercent: 50, absolute: 1 }),
  }),
  learnFromRuns: 3,
  historyRuns: 10,
});

/**
 * The family of a metric, from its unit, its name and whether its result's times are recovery
 * figures (the scenario descriptors say: src/scenarios/catalogue.ts `timesAreRecovery`), first rule
 * that applies: counts (unit `count`, or a `%` of losses), throughput (a rate `.../s`, a
 * `*_per_sec` or `*throughput*` name, or any other `%`), recovery (a time of a result whose times
 * are recovery figures), latency (everything else).
 */
export function familyOf(metric: string, unit: string, timesAreRecovery: boolean, direction: Direction = 'none'): MetricFamily {
  if (unit === 'count' || (unit === '%' && /loss|lost|error|duplicate/.test(metric))) return 'counts';
  if (unit.endsWith('/s') || /_per_sec|throughput/.test(metric) || unit === '%' || (direction === 'higher' && unit !== 'ms'))
    return 'throughput';
  if (timesAreRecovery) return 'recovery';
  return 'latency';
}

const VARIABLE = 'BENCH_MIN_EFFECTS';
const FAMILY_KEYS = ['relative_percent', 'absolute'] as const;
const TOP_KEYS = [...METRIC_FAMILIES, 'paired', 'learn_from_runs', 'history_runs'] as const;

/**
 * The minimum effects from BENCH_MIN_EFFECTS: unset means the defaults; a value starting with `{`
 * is JSON, anything else the path of a JSON file (relative to `cwd`). Keys are snake_case and
 * every one is optional (the defaults fill the rest), e.g.
 * `{"throughput": {"relative_percent": 15}, "latency": {"relative_percent": 40, "absolute": 0.05}, "learn_from_runs": 5}`.
 * @throws ConfigError naming the key and the expected form.
 */
export function resolveMinimumEffects(raw: string | undefined, cwd: string = process.cwd()): MinimumEffects {
  if (raw === undefined || raw.trim() === '') return DEFAULT_MINIMUM_EFFECTS;
  const text = raw.trim();
  let origin = VARIABLE;
  let json = text;
  if (!text.startsWith('{')) {
    const file = path.resolve(cwd, text);
    try {
      json = fs.readFileSync(file, 'utf8');
    } catch {
      throw new ConfigError(VARIABLE, 'inline JSON (starting with "{") or the path of a readable JSON file', raw);
    }
    origin = `${VARIABLE} (${text})`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new ConfigError(origin, `valid JSON (${(error as Error).message})`, json.slice(0, 200));
  }
  return minimumEffectsFrom(parsed, origin);
}

/** Validates parsed settings and fills in the defaults. @throws ConfigError naming the key. */
export function minimumEffectsFrom(input: unknown, origin = VARIABLE): MinimumEffects {
  const object = record(input, origin, `a JSON object with any of ${TOP_KEYS.join(', ')}`);
  unknownKeys(object, TOP_KEYS, origin);
  const families = familiesFrom(object, DEFAULT_MINIMUM_EFFECTS.families, origin);
  const pairedObject =
    object.paired === undefined ? {} : record(object.paired, `${origin} paired`, `an object with any of ${METRIC_FAMILIES.join(', ')}`);
  unknownKeys(pairedObject, METRIC_FAMILIES, `${origin} paired`);
  const paired = familiesFrom(pairedObject, DEFAULT_MINIMUM_EFFECTS.paired, `${origin} paired`);
  const learnFromRuns = number(
    object.learn_from_runs,
    `${origin} learn_from_runs`,
    'a whole number of runs: 0 (never learn) or 2 and more',
    true,
  );
  if (learnFromRuns === 1) throw new ConfigError(`${origin} learn_from_runs`, 'a whole number of runs: 0 (never learn) or 2 and more', '1');
  const historyRuns = number(object.history_runs, `${origin} history_runs`, 'a whole number of runs, 2 or more', true);
  if (historyRuns !== undefined && historyRuns < 2)
    throw new ConfigError(`${origin} history_runs`, 'a whole number of runs, 2 or more', String(historyRuns));
  return Object.freeze({
    families,
    paired,
    learnFromRuns: learnFromRuns ?? DEFAULT_MINIMUM_EFFECTS.learnFromRuns,
    historyRuns: historyRuns ?? DEFAULT_MINIMUM_EFFECTS.historyRuns,
  });
}

/** Each family's settings from `object` (keys are family names), the defaults filling the rest. */
function familiesFrom(
  object: Record<string, unknown>,
  defaults: MinimumEffects['families'],
  origin: string,
): Readonly<Record<MetricFamily, FamilyMinimumEffect>> {
  const families = Object.fromEntries(
    METRIC_FAMILIES.map((family) => {
      if (object[family] === undefined) return [family, defaults[family]];
      const where = `${origin} ${family}`;
      const settings = record(object[family], where, `an object with ${FAMILY_KEYS.join(' and/or ')}`);
      unknownKeys(settings, FAMILY_KEYS, where);
      return [
        family,
        Object.freeze({
          relativePercent:
            number(settings.relative_percent, `${where}.relative_percent`, 'a percentage of 0 or more (e.g. 20)') ??
            defaults[family].relativePercent,
          absolute:
            number(settings.absolute, `${where}.absolute`, "a number of 0 or more, in the metric's unit (e.g. 0.01)") ??
            defaults[family].absolute,
        }),
      ];
    }),
  ) as Record<MetricFamily, FamilyMinimumEffect>;
  return Object.freeze(families);
}

function record(value: unknown, where: string, expected: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(where, expected, JSON.stringify(value));
  return value as Record<string, unknown>;
}

function unknownKeys(object: Record<string, unknown>, allowed: readonly string[], where: string): void {
  const unknown = Object.keys(object).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new ConfigError(`${where} key "${unknown}"`, `one of ${allowed.join(', ')}`, unknown);
}

function number(value: unknown, where: string, expected: string, whole = false): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (whole && !Number.isInteger(value)))
    throw new ConfigError(where, expected, JSON.stringify(value));
  return value;
}
