/**
 * A `bench load` workload, resolved once at the boundary (pure): the file's or the flags' fields
 * (schemas/workload.schema.json, the generated `Workload` type) become one readonly, fully typed
 * object with every default filled in. Both surfaces go through `resolveWorkload`, so a flag and
 * a file field of the same name mean the same thing and fail with the same words.
 */
import { parseDurationMs } from '../faults/kinds/arguments';
import { parseFaultArgument, type FaultSpec } from '../faults/kinds/registry';
import { CLIENT_PROFILES, type ClientProfile } from '../client/api';
import { describeError } from '../errors';
import type { Workload as WorkloadInput } from '../schemaTypes/workload';

export type { WorkloadInput };

/** The intended publish rate over time. */
export type RatePlan =
  | { readonly kind: 'constant'; readonly perSecond: number }
  | { readonly kind: 'steps'; readonly steps: readonly { readonly perSecond: number; readonly durationMs: number }[] }
  | { readonly kind: 'ramp'; readonly fromPerSecond: number; readonly toPerSecond: number; readonly durationMs: number };

export type SizePlan =
  | { readonly kind: 'fixed'; readonly bytes: number }
  | { readonly kind: 'uniform'; readonly minBytes: number; readonly maxBytes: number }
  | { readonly kind: 'exponential'; readonly minBytes: number; readonly maxBytes: number; readonly meanBytes: number };

export type AckMode =
  | { readonly kind: 'auto' }
  | { readonly kind: 'manual' }
  | { readonly kind: 'multiple'; readonly every: number }
  | { readonly kind: 'nack'; readonly fraction: number };

/** A fault of the fault model, injected at `atMs` from the start of the run and removed `lengthMs` later. */
export interface ScheduledFault {
  /** As given: `latency:200ms`. */
  readonly text: string;
  readonly spec: FaultSpec;
  readonly atMs: number;
  readonly lengthMs: number;
}

export interface LoadWorkload {
  /** @default load */
  readonly name: string;
  readonly description: string | null;
  /** @default 1 */
  readonly producers: number;
  /** @default 1 */
  readonly consumers: number;
  /** @default constant 1000 msg/s */
  readonly rate: RatePlan;
  /** @default fixed 256 bytes */
  readonly size: SizePlan;
  /** @default 1 */
  readonly queues: number;
  /** @default bench-load-%d */
  readonly queuePattern: string;
  /** @default classic */
  readonly queueType: 'classic' | 'quorum' | 'stream';
  /** @default 100 */
  readonly prefetch: number;
  /** @default manual */
  readonly ack: AckMode;
  /** 0 = no confirms. @default 0 */
  readonly confirmWindow: number;
  /** @default 30 s */
  readonly durationMs: number;
  /** @default 0 */
  readonly warmupMs: number;
  /** @default amqplib (defaults) */
  readonly client: { readonly name: string; readonly profile: ClientProfile };
  readonly faults: readonly ScheduledFault[];
}

/** Bytes every message starts with: the intended send time (8) and the sequence number (8). */
export const HEADER_BYTES = 16;

export const WORKLOAD_DEFAULTS = {
  name: 'load',
  producers: 1,
  consumers: 1,
  rate: 1000,
  size: 256,
  queues: 1,
  queue_pattern: 'bench-load-%d',
  queue_type: 'classic',
  prefetch: 100,
  ack: 'manual',
  confirm_window: 0,
  duration: '30s',
  warmup: '0s',
  client: 'amqplib:defaults',
} as const;

/** Reports a bad field: the file says where, the flags say which flag. Never returns. */
export type FieldProblem = (field: string, problem: string) => never;

/**
 * The workload `input` describes, defaults filled in.
 * @throws whatever `fail` throws, for the first field that cannot be used
 */
export function resolveWorkload(input: WorkloadInput, fail: FieldProblem): LoadWorkload {
  const duration = (field: string, text: string): number => {
    try {
      return parseDurationMs(text, field);
    } catch {
      return fail(field, `must be a duration such as 500ms, 30s or 2m; got ${JSON.stringify(text)}`);
    }
  };
  const durationMs = duration('duration', input.duration ?? WORKLOAD_DEFAULTS.duration);
  if (durationMs <= 0) fail('duration', 'must be longer than 0');
  const warmupMs = duration('warmup', input.warmup ?? WORKLOAD_DEFAULTS.warmup);
  const producers = input.producers ?? WORKLOAD_DEFAULTS.producers;
  const consumers = input.consumers ?? WORKLOAD_DEFAULTS.consumers;
  if (producers === 0 && consumers === 0) fail('producers', 'and consumers cannot both be 0');
  return Object.freeze({
    name: input.name ?? WORKLOAD_DEFAULTS.name,
    description: input.description ?? null,
    producers,
    consumers,
    rate: resolveRate(input.rate ?? WORKLOAD_DEFAULTS.rate, duration),
    size: resolveSize(input.size ?? WORKLOAD_DEFAULTS.size, fail),
    queues: input.queues ?? WORKLOAD_DEFAULTS.queues,
    queuePattern: input.queue_pattern ?? WORKLOAD_DEFAULTS.queue_pattern,
    queueType: input.queue_type ?? WORKLOAD_DEFAULTS.queue_type,
    prefetch: input.prefetch ?? WORKLOAD_DEFAULTS.prefetch,
    ack: resolveAck(input.ack ?? WORKLOAD_DEFAULTS.ack, fail),
    confirmWindow: input.confirm_window ?? WORKLOAD_DEFAULTS.confirm_window,
    durationMs,
    warmupMs,
    client: resolveClient(input.client ?? WORKLOAD_DEFAULTS.client, fail),
    faults: (input.faults ?? []).map((window, index) => {
      const field = `faults[${index}]`;
      let spec: FaultSpec;
      try {
        spec = parseFaultArgument(window.fault);
      } catch (error) {
        return fail(`${field}.fault`, describeError(error));
      }
      const lengthMs = duration(`${field}.length`, window.length);
      if (lengthMs <= 0) fail(`${field}.length`, 'must be longer than 0');
      return { text: window.fault, spec, atMs: duration(`${field}.at`, window.at), lengthMs };
    }),
  });
}

function resolveRate(rate: NonNullable<WorkloadInput['rate']>, duration: (field: string, text: string) => number): RatePlan {
  if (typeof rate === 'number') return { kind: 'constant', perSecond: rate };
  if ('steps' in rate)
    return {
      kind: 'steps',
      steps: rate.steps.map((step, index) => ({
        perSecond: step.rate,
        durationMs: duration(`rate.steps[${index}].duration`, step.duration),
      })),
    };
  return {
    kind: 'ramp',
    fromPerSecond: rate.ramp.from,
    toPerSecond: rate.ramp.to,
    durationMs: duration('rate.ramp.duration', rate.ramp.duration),
  };
}

function resolveSize(size: NonNullable<WorkloadInput['size']>, fail: FieldProblem): SizePlan {
  const atLeastHeader = (field: string, bytes: number) => {
    if (!Number.isInteger(bytes) || bytes < HEADER_BYTES)
      fail(field, `must be a whole number of bytes ≥ ${HEADER_BYTES} (a message carries its intended send time and sequence number)`);
  };
  if (typeof size === 'number') {
    atLeastHeader('size', size);
    return { kind: 'fixed', bytes: size };
  }
  if (typeof size === 'string') {
    const match = /^(\d+):(\d+)$/.exec(size.trim());
    if (!match) return fail('size', `must be BYTES or MIN:MAX (e.g. 256 or 100:1000); got ${JSON.stringify(size)}`);
    const [minBytes, maxBytes] = [Number(match[1]), Number(match[2])];
    atLeastHeader('size', minBytes);
    if (maxBytes < minBytes) fail('size', `MIN:MAX needs MIN ≤ MAX; got ${JSON.stringify(size)}`);
    return minBytes === maxBytes ? { kind: 'fixed', bytes: minBytes } : { kind: 'uniform', minBytes, maxBytes };
  }
  atLeastHeader('size.min', size.min);
  if (size.max < size.min) fail('size.max', `must be ≥ size.min (${size.min})`);
  if (size.distribution === 'uniform') return { kind: 'uniform', minBytes: size.min, maxBytes: size.max };
  if (size.mean === undefined) return fail('size.mean', 'is needed by the exponential distribution');
  return { kind: 'exponential', minBytes: size.min, maxBytes: size.max, meanBytes: size.mean };
}

function resolveAck(text: string, fail: FieldProblem): AckMode {
  const [mode, argument] = text.trim().split(':');
  if (mode === 'auto' && argument === undefined) return { kind: 'auto' };
  if (mode === 'manual' && argument === undefined) return { kind: 'manual' };
  if (mode === 'multiple' && argument !== undefined && /^[1-9]\d*$/.test(argument)) return { kind: 'multiple', every: Number(argument) };
  if (mode === 'nack' && argument !== undefined && /^\d*\.?\d+$/.test(argument) && Number(argument) <= 1)
    return { kind: 'nack', fraction: Number(argument) };
  return fail('ack', `must be auto, manual, multiple:N (N ≥ 1) or nack:FRACTION (0 to 1); got ${JSON.stringify(text)}`);
}

function resolveClient(text: string, fail: FieldProblem): LoadWorkload['client'] {
  const [name, profile, extra] = text.trim().split(':');
  if (!name || extra !== undefined)
    return fail('client', `must be NAME or NAME:PROFILE (e.g. amqplib:defaults); got ${JSON.stringify(text)}`);
  if (profile !== undefined && !(CLIENT_PROFILES as readonly string[]).includes(profile))
    return fail('client', `profile must be one of ${CLIENT_PROFILES.join(', ')}; got ${JSON.stringify(profile)}`);
  return { name, profile: (profile ?? 'defaults') as ClientProfile };
}

/** The name of queue `index` (0-based): `%d` is replaced by index + 1. */
export function queueName(pattern: string, index: number): string {
  return pattern.replace('%d', String(index + 1));
}

/** The end of the schedule, from the start of the run. */
export function scheduleEndMs(workload: Pick<LoadWorkload, 'warmupMs' | 'durationMs'>): number {
  return workload.warmupMs + workload.durationMs;
}

/**
 * The workload as a file would give it (pure): what `resolveWorkload` turns back into the same
 * workload. A fleet hands it to its agents (a file beside the run, a Kubernetes ConfigMap), so
 * every agent resolves exactly the coordinator's workload.
 */
export function workloadInputOf(workload: LoadWorkload): WorkloadInput {
  const ms = (value: number) => `${value}ms`;
  const { rate, size, ack } = workload;
  return {
    name: workload.name,
    ...(workload.description === null ? {} : { description: workload.description }),
    producers: workload.producers,
    consumers: workload.consumers,
    rate:
      rate.kind === 'constant'
        ? rate.perSecond
        : rate.kind === 'ramp'
          ? { ramp: { from: rate.fromPerSecond, to: rate.toPerSecond, duration: ms(rate.durationMs) } }
          : {
              steps: rate.steps.map((step) => ({ rate: step.perSecond, duration: ms(step.durationMs) })) as NonNullable<
                Extract<WorkloadInput['rate'], { steps: unknown }>
              >['steps'],
            },
    size:
      size.kind === 'fixed'
        ? size.bytes
        : size.kind === 'uniform'
          ? { distribution: 'uniform', min: size.minBytes, max: size.maxBytes }
          : { distribution: 'exponential', min: size.minBytes, max: size.maxBytes, mean: size.meanBytes },
    queues: workload.queues,
    queue_pattern: workload.queuePattern,
    queue_type: workload.queueType,
    prefetch: workload.prefetch,
    ack: ack.kind === 'multiple' ? `multiple:${ack.every}` : ack.kind === 'nack' ? `nack:${ack.fraction}` : ack.kind,
    confirm_window: workload.confirmWindow,
    duration: ms(workload.durationMs),
    warmup: ms(workload.warmupMs),
    client: `${workload.client.name}:${workload.client.profile}`,
    ...(workload.faults.length > 0
      ? { faults: workload.faults.map((fault) => ({ fault: fault.text, at: ms(fault.atMs), length: ms(fault.lengthMs) })) }
      : {}),
  };
}
