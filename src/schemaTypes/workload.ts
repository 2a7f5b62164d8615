/**
 * Generated from schemas/workload.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

/**
 * A duration with its unit: 500ms, 30s, 2m.
 */
export type Duration = string;

/**
 * One `bench load` workload (workloads/*.yaml or .json; src/load/workloadFile.ts). Every field is optional: what is missing takes the default of the flag of the same name (`bench load --help`); flags given beside a file override it.
 */
export interface Workload {
  /**
   * Names the result (snake_case). @default load
   */
  name?: string;
  description?: string;
  /**
   * Publishing connections (PerfTest -x). @default 1
   */
  producers?: number;
  /**
   * Consuming connections (PerfTest -y). @default 1
   */
  consumers?: number;
  /**
   * Total intended publish rate in msg/s (0 = as fast as possible), or steps, or a ramp.
   */
  rate?: number | Steps | Ramp;
  /**
   * Message size in bytes (at least 16: the first 16 carry the intended send time and the sequence number), `MIN:MAX` (uniform), or a distribution.
   */
  size?: number | string | SizeDistribution;
  /**
   * Queues; producers and consumers are spread over them round robin. @default 1
   */
  queues?: number;
  /**
   * Queue names, %d the queue's index from 1 (PerfTest --queue-pattern). @default bench-load-%d
   */
  queue_pattern?: string;
  /**
   * @default classic
   */
  queue_type?: 'classic' | 'quorum' | 'stream';
  /**
   * Unacked deliveries per consumer (PerfTest -q); 0 = unlimited. @default 100
   */
  prefetch?: number;
  /**
   * auto (no-ack), manual, multiple:N (ack every N-th with multiple), nack:FRACTION (that fraction nacked without requeue). @default manual
   */
  ack?: string;
  /**
   * Outstanding publisher confirms per producer (PerfTest -c); 0 = no confirms. @default 0
   */
  confirm_window?: number;
  /**
   * A duration with its unit: 500ms, 30s, 2m.
   */
  duration?: string;
  /**
   * A duration with its unit: 500ms, 30s, 2m.
   */
  warmup?: string;
  /**
   * NAME[:PROFILE]. @default amqplib:defaults
   */
  client?: string;
  faults?: FaultWindow[];
}
export interface Steps {
  /**
   * Rates held in turn (PerfTest --variable-rate RATE:SECONDS); the last one is held to the end.
   *
   * @minItems 1
   */
  steps: [
    {
      rate: number;
      duration: Duration;
    },
    ...{
      rate: number;
      duration: Duration;
    }[],
  ];
}
export interface Ramp {
  /**
   * The rate rises (or falls) linearly from `from` to `to` over `duration`, then stays at `to`.
   */
  ramp: {
    from: number;
    to: number;
    duration: Duration;
  };
}
export interface SizeDistribution {
  distribution: 'uniform' | 'exponential';
  min: number;
  max: number;
  /**
   * Exponential only: the mean size in bytes, cut to min..max.
   */
  mean?: number;
}
export interface FaultWindow {
  /**
   * KIND[:ARG] of the fault model (latency:200ms, reset_peer, broker_close, ...).
   */
  fault: string;
  /**
   * A duration with its unit: 500ms, 30s, 2m.
   */
  at: string;
  /**
   * A duration with its unit: 500ms, 30s, 2m.
   */
  length: string;
}
