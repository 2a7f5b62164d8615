/**
 * `bench load`'s flags, resolved once at the boundary: the workload (flags and file fields through
 * the same resolution, src/load/workload.ts; flags beside a file override its fields), the run's
 * own settings, and which part of a fleet this process plays. Bad input throws ConfigError or
 * WorkloadFileError naming the flag and what to give.
 */
import path from 'node:path';
import { ConfigError } from '../errors';
import { parseFaultFlag } from '../load/faultSchedule';
import { resolveWorkload, type LoadWorkload, type WorkloadInput } from '../load/workload';
import { readWorkloadFile, resolveWorkloadFile, schemaProblemOf } from '../load/workloadFile';
import { parseDurationMs } from '../faults/kinds/arguments';
import { resolveFleetMode, type FleetFlags, type FleetMode } from './loadFleetMode';

export interface LoadFlags extends FleetFlags {
  readonly producers?: string;
  readonly consumers?: string;
  readonly rate?: string;
  readonly size?: string;
  readonly queues?: string;
  readonly queuePattern?: string;
  readonly queueType?: string;
  readonly prefetch?: string;
  readonly ack?: string;
  readonly confirmWindow?: string;
  readonly duration?: string;
  readonly warmup?: string;
  readonly client?: string;
  readonly name?: string;
  readonly fault: string[];
  readonly output?: string;
  readonly interval: string;
  readonly metricsPort?: string;
  readonly proxy: boolean;
  readonly catchUp: string;
  readonly findMaxRate?: boolean;
  readonly p99Bound?: string;
  readonly compareBare?: boolean;
}

/** Everything `bench load` runs with, resolved. */
export interface LoadCliOptions {
  readonly workload: LoadWorkload;
  readonly intervalMs: number;
  readonly catchUpMs: number;
  readonly metricsPort: number | undefined;
  readonly p99BoundMs: number;
  readonly fleet: FleetMode;
}

/** @throws ConfigError | WorkloadFileError */
export function resolveLoadOptions(file: string | undefined, flags: LoadFlags): LoadCliOptions {
  const workload = workloadOf(file, flags);
  const intervalMs = parseDurationMs(flags.interval, '--interval');
  if (intervalMs < 50) throw new ConfigError('--interval', 'at least 50ms', flags.interval);
  const catchUpMs = parseDurationMs(flags.catchUp, '--catch-up');
  const p99BoundMs = Number(flags.p99Bound ?? '10');
  if (!Number.isFinite(p99BoundMs) || p99BoundMs < 0) throw new ConfigError('--p99-bound', 'a number of milliseconds ≥ 0', flags.p99Bound);
  if (flags.findMaxRate && flags.compareBare)
    throw new ConfigError('--find-max-rate', 'given without --compare-bare (one at a time)', 'both');
  let metricsPort: number | undefined;
  if (flags.metricsPort !== undefined) {
    metricsPort = Number(flags.metricsPort);
    if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)
      throw new ConfigError('--metrics-port', 'a port from 0 to 65535 (0 = any free port)', flags.metricsPort);
  }
  const fleet = resolveFleetMode(flags, workload);
  if (fleet.kind !== 'alone') {
    const alone = flags.findMaxRate ? '--find-max-rate' : flags.compareBare ? '--compare-bare' : undefined;
    if (alone) throw new ConfigError(alone, 'given without --agents (it measures one process)', 'with --agents');
  }
  return { workload, intervalMs, catchUpMs, metricsPort, p99BoundMs, fleet };
}

/** Flags as workload fields (only those given). @throws ConfigError naming the flag */
export function flagsToInput(flags: LoadFlags): WorkloadInput {
  const integer = (flag: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(flag, 'a whole number ≥ 0', raw);
    return Number(raw);
  };
  const number = (flag: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new ConfigError(flag, 'a number ≥ 0', raw);
    return value;
  };
  const size = flags.size === undefined ? undefined : /^\d+$/.test(flags.size.trim()) ? Number(flags.size) : flags.size;
  const faults = flags.fault.map((text) => {
    const parsed = parseFaultFlag(text);
    if (typeof parsed === 'string') throw new ConfigError('--fault', 'KIND[:ARG]@START+LENGTH (e.g. latency:200ms@10s+5s)', text);
    return parsed;
  });
  const input: Record<string, unknown> = {
    name: flags.name,
    producers: integer('--producers', flags.producers),
    consumers: integer('--consumers', flags.consumers),
    rate: number('--rate', flags.rate),
    size,
    queues: integer('--queues', flags.queues),
    queue_pattern: flags.queuePattern,
    queue_type: flags.queueType,
    prefetch: integer('--prefetch', flags.prefetch),
    ack: flags.ack,
    confirm_window: integer('--confirm-window', flags.confirmWindow),
    duration: flags.duration,
    warmup: flags.warmup,
    client: flags.client,
    faults: faults.length > 0 ? faults : undefined,
  };
  for (const key of Object.keys(input)) if (input[key] === undefined) delete input[key];
  const problem = schemaProblemOf(input);
  if (problem) throw flagError(problem.field, problem.problem, valueAt(input, problem.field));
  return input;
}

function valueAt(input: Record<string, unknown>, field: string): unknown {
  return input[field.split(/[.[]/)[0]!];
}

/** The workload of a file and/or flags. @throws ConfigError | WorkloadFileError */
export function workloadOf(file: string | undefined, flags: LoadFlags): LoadWorkload {
  const overrides = flagsToInput(flags);
  if (file !== undefined) {
    const content = readWorkloadFile(file);
    const named = content.input.name === undefined && overrides.name === undefined ? { name: fileName(file) } : {};
    return resolveWorkloadFile({ ...content, input: { ...named, ...content.input } }, overrides);
  }
  return resolveWorkload(overrides, (field, problem) => {
    throw flagError(field, problem, valueAt(overrides as Record<string, unknown>, field));
  });
}

/** A workload field's problem as the flag's: `--size must be ...; got "100:10"`. */
function flagError(field: string, problem: string, got: unknown): ConfigError {
  const flag = `--${field.split(/[.[]/)[0]!.replace(/_/g, '-')}`;
  return new ConfigError(
    flag,
    problem.startsWith('must be ') ? problem.slice('must be '.length) : `valid (${problem})`,
    typeof got === 'object' ? JSON.stringify(got) : String(got),
  );
}

function fileName(file: string): string {
  return path
    .basename(file.replace(/^env:/, ''))
    .replace(/\.(ya?ml|json)$/i, '')
    .replace(/[^a-z0-9]+/gi, '_')
    .toLowerCase();
}
