/**
 * Generated from schemas/client-protocol.schema.json by `npm run schemas:types`. Do not edit: change the schema
 * and regenerate (`npm run lint` and a unit test fail while this file is stale).
 */

/**
 * Version 2 of the line protocol between the harness and a client program of any language (adapters/<language>/; the driver is src/client/process/; docs/guide/client-adapter.md). The harness starts the program once per connection, in a process group of its own, with no arguments, and writes one JSON command per line on its stdin; the program writes one JSON line per reply or event on its stdout (stderr is free text, kept for failure reports). Started with `--describe`, it prints its description and exits. A program that prints anything else on stdout, answers late or never, or outlives its stop bound is ended with its group. Every time is CLOCK_MONOTONIC in ns, read in the client's own process when the library told it. Throughput is measured inside the program (`publish_run`, `delivered` counts), never one message per line. Version 2 adds `recover` (the recovery's round trip made and timed inside the program); a harness speaking 2 still drives a version-1 program (its recovery then crosses the pipe).
 */
export type ClientProtocol = Description | Command | Output;
export type Profile = 'defaults' | 'normalised';
/**
 * One line the harness writes on the program's stdin.
 */
export type Command =
  | {
      op: 'connect';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      profile: Profile;
      /**
       * Broker URLs, first preferred (credentials travel here, never in argv).
       *
       * @minItems 1
       */
      urls: [string, ...string[]];
      /**
       * Shown by the broker as `connection_name`.
       */
      connectionName?: string;
      startBoundMs: number;
      harnessBackoff: Backoff;
    }
  | {
      op: 'clock';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
    }
  | {
      op: 'publisher';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      confirms: boolean;
      /**
       * Its handle, chosen by the harness (later commands name it).
       */
      publisher: number;
    }
  | {
      op: 'publish';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      publisher: number;
      exchange: string;
      routingKey: string;
      /**
       * The message body, base64.
       */
      body: string;
      persistent?: boolean;
    }
  | {
      op: 'publish_run';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      publisher: number;
      exchange: string;
      routingKey: string;
      count: number;
      sizeBytes: number;
      /**
       * The harness's bound on the whole run: no reply within it (and a grace), and the program is ended as hung.
       */
      boundMs: number;
      /**
       * Bound on each publish of the run (with confirms, until its confirm); absent: `boundMs`.
       */
      publishBoundMs?: number;
    }
  | {
      op: 'flush';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      publisher: number;
      boundMs: number;
    }
  | {
      op: 'close_publisher';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      publisher: number;
    }
  | {
      op: 'consume';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      queue: string;
      ack: 'auto' | 'manual';
      prefetch: number;
      /**
       * false: the harness reads no body and acks every delivery as it arrives: the program acks each one itself (manual ack) and reports counts (`delivered`) instead of messages.
       */
      bodies: boolean;
      /**
       * Its handle, chosen by the harness: deliveries name it, and may come before the reply.
       */
      consumer: number;
    }
  | {
      op: 'ack';
      consumer: number;
      tags: number[];
      /**
       * basic.ack multiple on the last tag.
       */
      multiple?: boolean;
    }
  | {
      op: 'nack';
      consumer: number;
      tags: number[];
      requeue: boolean;
    }
  | {
      op: 'cancel';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      consumer: number;
    }
  | {
      op: 'ensure';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      deadlineMs: number;
    }
  | {
      op: 'recover';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      deadlineMs: number;
      /**
       * The consumer whose queue the probe goes to and whose delivery proves it.
       */
      consumer: number;
      /**
       * A publisher without confirms that the probe is published on.
       */
      publisher: number;
      roundTripBoundMs: number;
    }
  | {
      op: 'destroy';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      reason: string;
    }
  | {
      op: 'close';
      /**
       * The request's number: the reply carries it in `re`.
       */
      id: number;
      boundMs: number;
    };
/**
 * One line the program writes on its stdout.
 */
export type Output = Hello | Reply | Failure | Event;
/**
 * CLOCK_MONOTONIC in nanoseconds, as decimal digits (beyond 2^53 a JSON number loses precision): the clock of Node's process.hrtime.bigint(), shared by every process of one Linux machine.
 */
export type MonotonicNs = string;
/**
 * What the library told, in the harness's words (src/client/faults.ts): reset (RST), closed (FIN without an AMQP close), broker_closed (an AMQP close from the broker), heartbeat (missed heartbeats), deadline (the client's own deadline), error (anything else), channel_closed (a channel error that took the connection down).
 */
export type ConnectionFault = 'reset' | 'closed' | 'broker_closed' | 'heartbeat' | 'deadline' | 'error' | 'channel_closed';
/**
 * What the library told, unasked.
 */
export type Event =
  | {
      ev: 'fault';
      kind: ConnectionFault;
      message: string;
      atNs: MonotonicNs;
    }
  | {
      ev: 'recovered';
      atNs: MonotonicNs;
      attempts: number;
      localPort?: number | null;
    }
  | {
      ev: 'signal';
      kind: SignalKind;
      message: string;
      atNs: MonotonicNs;
    }
  | {
      ev: 'deliveries';
      consumer: number;
      /**
       * @minItems 1
       */
      messages: [
        {
          /**
           * The program's own number for the delivery (what `ack` names), unique across reconnections.
           */
          tag: number;
          body: string;
          redelivered: boolean;
          /**
           * CLOCK_MONOTONIC in nanoseconds, as decimal digits (beyond 2^53 a JSON number loses precision): the clock of Node's process.hrtime.bigint(), shared by every process of one Linux machine.
           */
          atNs?: string;
        },
        ...{
          /**
           * The program's own number for the delivery (what `ack` names), unique across reconnections.
           */
          tag: number;
          body: string;
          redelivered: boolean;
          /**
           * CLOCK_MONOTONIC in nanoseconds, as decimal digits (beyond 2^53 a JSON number loses precision): the clock of Node's process.hrtime.bigint(), shared by every process of one Linux machine.
           */
          atNs?: string;
        }[],
      ];
    }
  | {
      ev: 'delivered';
      consumer: number;
      count: number;
      atNs: MonotonicNs;
    };
export type SignalKind = 'channel_closed' | 'consumer_cancelled' | 'blocked' | 'unblocked';

/**
 * What `<program> --describe` prints (one line), read once per harness process: what results record of the client without connecting.
 */
export interface Description {
  /**
   * The protocol version the program speaks: 2 (with `recover`), or 1.
   */
  protocol: 1 | 2;
  /**
   * How reports name the client.
   */
  name: string;
  /**
   * The library measured (its own package name in its language).
   */
  library: string;
  /**
   * Its installed version, read by the program from the library itself.
   */
  version: string;
  language: string;
  /**
   * The interpreter or toolchain and its version (e.g. `CPython 3.11.2 /usr/bin/python3`).
   */
  runtime: string;
  /**
   * Where the library was loaded from (its folder or module path): which installation was measured.
   */
  location?: string;
  /**
   * `library`: the library reconnects (or the program calls the library's own reconnect); `harness`: the library has none and the program's loop is the harness's recovery, labelled so.
   */
  recovery: 'library' | 'harness';
  multipleHosts: boolean;
  /**
   * How the library gives each typed signal, or `none: ...` saying what it does instead.
   */
  signals: {
    channel_closed: string;
    consumer_cancelled: string;
    blocked: string;
    unblocked: string;
  };
  acks: {
    multiple: boolean;
    nack: boolean;
  };
  /**
   * How the library notices a silent peer, in words citing its source, when that is not the protocol's heartbeat check (a peer silent for two intervals or longer): the fault matrix's heartbeat judgement says it beside the figures (ClientAdapter.silenceCheck). Absent: it is.
   */
  silenceCheck?: string;
  /**
   * @minItems 1
   */
  profiles: [Profile, ...Profile[]];
  settings: {
    /**
     * The effective settings of a profile, in the library's own option names (`default` where the library decides).
     */
    defaults?: {
      [k: string]: string | number | boolean;
    };
    /**
     * The effective settings of a profile, in the library's own option names (`default` where the library decides).
     */
    normalised?: {
      [k: string]: string | number | boolean;
    };
  };
}
/**
 * The harness loop's backoff for this profile (the same as the amqplib control's): what a program whose recovery is the harness's must use.
 */
export interface Backoff {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  jitter: number;
}
/**
 * The first line, once the program is ready for commands.
 */
export interface Hello {
  ev: 'hello';
  protocol: 1 | 2;
  atNs: MonotonicNs;
}
/**
 * A command done. Fields by command: connect `localPort`, `atNs`; clock `nowNs`; publish_run `run`; ensure `attempts`, `connectedNs`; recover those and `recoveryStartedNs`, `recoveredNs`; close `hitBound`.
 */
export interface Reply {
  re: number;
  ok: true;
  localPort?: number | null;
  atNs?: MonotonicNs;
  nowNs?: MonotonicNs;
  run?: Run;
  attempts?: number;
  connectedNs?: MonotonicNs;
  recoveryStartedNs?: MonotonicNs;
  recoveredNs?: MonotonicNs;
  hitBound?: boolean;
}
/**
 * A publish_run as the program measured it.
 */
export interface Run {
  published: number;
  errors: number;
  startedNs: MonotonicNs;
  completedNs: MonotonicNs;
  /**
   * Each publish's latency, as a histogram: `counts[i]` publishes took `valuesUs[i]` microseconds (values above 1000 µs rounded to 3 significant digits).
   */
  latencyUs: {
    valuesUs: number[];
    counts: number[];
  };
  /**
   * @maxItems 5
   */
  errorSamples:
    | []
    | [string]
    | [string, string]
    | [string, string, string]
    | [string, string, string, string]
    | [string, string, string, string, string];
  /**
   * The publish of the run (1-based) that did not settle within `publishBoundMs`, where the run stopped; absent: every publish settled (confirmed, nacked or failed).
   */
  unsettledPublish?: number;
}
/**
 * A command that failed.
 */
export interface Failure {
  re: number;
  ok: false;
  /**
   * fault: the connection failed (`kind`, `atNs`); nacked: the broker refused a confirmed publish; timeout: a bound passed; unsupported: the library cannot; invalid: a command the program does not understand; closed: the connection was closed.
   */
  code: 'fault' | 'nacked' | 'timeout' | 'unsupported' | 'invalid' | 'closed';
  error: string;
  kind?: ConnectionFault;
  atNs?: MonotonicNs;
}
