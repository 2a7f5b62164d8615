/**
 * The argument of `--fault KIND[:ARG]` and of a workload file's fault (pure): a duration with its
 * unit (`200ms`, `5s`, `1m`), or a plain number of milliseconds.
 */
import { ConfigError } from '../../errors';
import type { FaultEvent } from '../toxiproxyClient';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/**
 * `200ms` -> 200, `1.5s` -> 1500, `250` -> 250.
 * @throws ConfigError naming `what` and the accepted forms
 */
export function parseDurationMs(text: string, what: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  if (!match) throw new ConfigError(what, 'a duration such as 200ms, 5s or 1m (a bare number is milliseconds)', text);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
}

/** A fault that takes no argument: refuses one, so a typo is not silently ignored. */
export function noArgument<T>(kind: string, argument: string | undefined, defaults: T): T {
  if (argument !== undefined && argument !== '') throw new ConfigError(`--fault ${kind}`, 'given without an argument', argument);
  return defaults;
}

/** Says which context field a fault needs when a suite did not give it. */
export function required<T>(value: T | undefined, kind: string, what: string): T {
  if (value === undefined) throw new ConfigError(`fault ${kind}`, `given ${what} (the suite running it provides it)`, undefined);
  return value;
}

/** An AMQP frame the broker sent (downstream) that the proxy saw pass: a broker fault's exact moment. */
export function isFrame(event: FaultEvent, method: string): boolean {
  return event.kind === 'amqp_frame' && event.stream === 'downstream' && event.detail?.method === method;
}
