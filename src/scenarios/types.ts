/**
 * What a suite and each of its scenarios say about themselves, once: the suite's name (the
 * category its results record), its report section, and per scenario its result family's name, a
 * short label, its place in the report, the fault it injects, and its headline figures with units
 * and targets. The report and the results read these descriptors (catalogue.ts); neither names a
 * scenario or a fault itself, so a new scenario is a row in its suite's descriptor here plus its
 * benchmark table, and a new suite is its folder, a descriptor file listed in catalogue.ts and its
 * benchmark file (docs/contributing.md, "Add a suite").
 */
import type { ReceivedKind } from '../client/faults';

/** A suite's name: its results' category, benchmarks/bench_<name>.bench.ts, and src/<name>/ when it has code of its own. */
export type SuiteName = string;

/** One suite: its benchmark file, its results' category and report section, its scenarios. */
export interface SuiteDescriptor {
  readonly name: SuiteName;
  /** The report's section of its results: `Recovery` (`## Recovery results`). */
  readonly title: string;
  /**
   * Its code is a folder of its own, src/<name>/ (suites never import each other); false for a
   * suite whose benchmark file uses shared code only.
   */
  readonly folder: boolean;
  /** Times in its results are recovery figures (their own minimum effect), not latencies. @default false */
  readonly timesAreRecovery?: boolean;
  /**
   * Categories its results recorded before suites named them (`scalability` for the realistic
   * suite): read back as this suite, so older archives and histories keep their place.
   */
  readonly formerCategories?: readonly string[];
  /** Its result families, in report order. */
  readonly scenarios: readonly ScenarioRow[];
}

/** A scenario as its suite's descriptor lists it (the catalogue adds the suite). */
export type ScenarioRow = Omit<ScenarioDescriptor, 'suite'>;

/** A target on a figure: `< 10 ms`. */
export interface FigureTarget {
  readonly comparator: '<' | '>';
  readonly threshold: number;
  readonly unit: string;
}

/**
 * A key metric: one of the few figures a reader looks for first (the first screen, the JUnit
 * properties, the history's trend), checked against its target.
 */
export interface KeyFigure {
  /** Stable id for trends and the history: `rst_detection`, `peak_publish_throughput`. */
  readonly id: string;
  readonly label: string;
  /** Place among the key metrics (lower first): peaks, then recovery figures. */
  readonly rank: number;
  readonly metric: string;
  /** `max`/`min`: one figure over the family's results; `each`: one per parameter set. */
  readonly pick: 'max' | 'min' | 'each';
  readonly target?: FigureTarget;
  /** Only results whose every consume window was steady and never producer-bound. */
  readonly onlyClean?: 'consume';
  /** The figure is about this fault as the clients received it: results where they got another are renamed and not scored. */
  readonly receivedFault?: ReceivedKind;
  /** Its id and label when the clients received another fault (so a trend never mixes the two). */
  readonly otherwise?: { readonly id: string; readonly label: string };
  /** Drawn in the history's trend chart. */
  readonly trend?: boolean;
}

/** One column of "Clients side by side" (and, with `chart`, one panel of its chart). */
export interface ClientFigure {
  readonly id: string;
  readonly metric: string;
  /** Column title: `RST detection`. */
  readonly column: string;
  readonly table: 'throughput' | 'faults';
  readonly order: number;
  /** Only results whose parameters have these values (`publish_mode: plain`, 256-byte messages). */
  readonly where?: Readonly<Record<string, string | number>>;
  /** The parameter that tells the family's configurations apart, and which end of it to take. */
  readonly by?: { readonly parameter: string; readonly take: 'most' | 'fewest' };
  /** How a cell reads: a ratio with its target, a loss (❌ when above 0), duplicates (with the unexplained), a recovery figure. */
  readonly cell?: { readonly kind: 'ratio_at_least'; readonly percent: number } | { readonly kind: 'loss' | 'duplicates' | 'recovery' };
  /** The chart panel's title (`RST detection (ms)`) and which way is better; absent: table only. */
  readonly chart?: { readonly title: string; readonly better: 'higher' | 'lower' };
  /** What the column measures, for the section's notes. */
  readonly note: string;
}

/** How the report draws a family: publish rate by threads, consumer scaling, recovery phases and timelines. */
export type ChartRole = 'publish_by_threads' | 'consumer_scaling' | 'recovery';

export interface ScenarioDescriptor {
  /** The result family (raw results' `name`, the file-name prefix). */
  readonly name: string;
  readonly suite: SuiteName;
  /** Short, for tables and axes: `TCP reset`. */
  readonly label: string;
  /** Place in the report among its suite's scenarios (lower first). */
  readonly order: number;
  /** The fault it injects (a kind of src/faults/kinds/), if any. */
  readonly fault?: string;
  /**
   * `measurement`: measures the client; `witness`: the harness checking itself (harness/bare,
   * proxy overhead), run by `bench verify`.
   */
  readonly role: 'measurement' | 'witness';
  readonly keyFigures?: readonly KeyFigure[];
  readonly clientFigures?: readonly ClientFigure[];
  readonly chart?: ChartRole;
  /** A witness that is the bare floor of this scenario (recovery harness/bare). */
  readonly floorOf?: string;
  /** Metric-name prefixes of a summary that holds several faults' figures (`rst_` -> `TCP reset`). */
  readonly metricPrefixes?: Readonly<Record<string, string>>;
  /** Older results of this family called the publish mode `mode` (read back as `publish_mode`). */
  readonly legacyModeIsPublishMode?: boolean;
  /** Its times are recovery figures, whatever its suite says (a realistic workload through faults). */
  readonly timesAreRecovery?: boolean;
}
