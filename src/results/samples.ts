/**
 * Samples: one run's spread behind its metrics, as a result may carry it: `samples` (per-round
 * rates, per-thread latencies) and `histograms` (every message's latency, HDR-encoded). They are
 * kept and shown, and never taken for replicates of a run: the threads, rounds and messages of
 * one run share its connections, its worker pool and its moment on the machine, so a test over
 * them calls ordinary run-to-run drift a change (24 of 78 metrics came out "significant" between
 * two runs of the same commit). The comparison tests `replicates` only (see replicates.ts).
 */
import type { EncodedHistogram } from './rawResult';

/** What a result may carry besides its values; history entries have neither. */
export interface SampleSource {
  readonly samples?: Readonly<Record<string, readonly number[]>>;
  readonly histograms?: Readonly<Record<string, EncodedHistogram>>;
}
