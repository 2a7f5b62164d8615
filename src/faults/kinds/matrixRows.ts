/** Matrix rows several faults share (their `matrix` field). */
import type { MatrixRowSpec } from '../model';

/**
 * A silence only heartbeats notice (a dead peer, a paused node): 25 s to notice with the
 * normalised 5 s heartbeat (three intervals and a margin), at five phases of the interval; with a
 * library's own defaults a 60 s heartbeat (two or three missed) or none at all, so those cells are
 * slow.
 */
export const SILENCE_ROW: MatrixRowSpec = {
  bounds: (profile) =>
    profile === 'defaults' ? { detectionBoundMs: 200_000, recoveryBoundMs: 30_000 } : { detectionBoundMs: 25_000, recoveryBoundMs: 20_000 },
  slowProfiles: ['defaults'],
  heartbeatPhases: 5,
};
