/**
 * The fault timeline (an extension Toxiproxy lacks): when each toxic really acted on each
 * connection, and when each connection opened and closed, in `process.hrtime.bigint()`
 * nanoseconds. That clock is monotonic and shared by every thread and process on the
 * machine, so a benchmark can time detection from the moment the RST really left.
 * Bounded: the oldest entries are dropped (and counted) past the limits.
 */
import type { FaultEventKind, StreamDirection } from './toxics/types';

export interface FaultEvent {
  /** Increases by one per event of this proxy, never reused (even after a clear). */
  readonly seq: number;
  readonly atNs: bigint;
  readonly proxy: string;
  readonly toxic: string;
  readonly toxicType: string;
  readonly stream: StreamDirection;
  readonly connectionId: number;
  readonly kind: FaultEventKind;
  readonly detail: Readonly<Record<string, number | string>>;
}

/** Why a proxied connection ended, as first observed. */
export type CloseReason = 'client_closed' | 'upstream_closed' | 'upstream_unreachable' | 'reset_peer' | 'toxic_closed' | 'proxy_stopped';

export interface ConnectionRecord {
  readonly id: number;
  readonly client: string;
  readonly upstream: string;
  readonly openedAtNs: bigint;
  upstreamConnectedAtNs: bigint | undefined;
  closedAtNs: bigint | undefined;
  closeReason: CloseReason | undefined;
  /** Error text when the close came with one (e.g. `connect ECONNREFUSED 127.0.0.1:1`). */
  closeError: string | undefined;
  bytesUpstream: number;
  bytesDownstream: number;
}

export interface TimelineLimits {
  /** @default 10000 */
  readonly maxEvents: number;
  /** Closed connections kept for inspection. @default 1000 */
  readonly maxClosedConnections: number;
}

export const TIMELINE_DEFAULTS: TimelineLimits = { maxEvents: 10_000, maxClosedConnections: 1_000 };

export type NewFaultEvent = Omit<FaultEvent, 'seq' | 'proxy'>;

export class FaultTimeline {
  private readonly eventList: FaultEvent[] = [];
  private readonly openConnections = new Map<number, ConnectionRecord>();
  private readonly closedConnections: ConnectionRecord[] = [];
  private nextSeq = 1;
  private droppedEventCount = 0;

  constructor(
    readonly proxyName: string,
    private readonly limits: TimelineLimits = TIMELINE_DEFAULTS,
  ) {}

  record(event: NewFaultEvent): FaultEvent {
    const stored: FaultEvent = { seq: this.nextSeq, proxy: this.proxyName, ...event };
    this.nextSeq += 1;
    this.eventList.push(stored);
    if (this.eventList.length > this.limits.maxEvents) {
      this.eventList.shift();
      this.droppedEventCount += 1;
    }
    return stored;
  }

  /** Events at or after `sinceNs` (all when omitted), oldest first. */
  events(sinceNs?: bigint): FaultEvent[] {
    return sinceNs === undefined ? [...this.eventList] : this.eventList.filter((event) => event.atNs >= sinceNs);
  }

  /** Events dropped because the timeline was full since the last clear. */
  get droppedEvents(): number {
    return this.droppedEventCount;
  }

  openConnection(record: ConnectionRecord): void {
    this.openConnections.set(record.id, record);
  }

  closeConnection(record: ConnectionRecord): void {
    if (!this.openConnections.delete(record.id)) return;
    this.closedConnections.push(record);
    if (this.closedConnections.length > this.limits.maxClosedConnections) this.closedConnections.shift();
  }

  /** Closed connections (oldest first) then open ones. */
  connections(): ConnectionRecord[] {
    return [...this.closedConnections, ...this.openConnections.values()];
  }

  /** Forgets the events and the closed connections (open connections stay listed). */
  clear(): void {
    this.eventList.length = 0;
    this.closedConnections.length = 0;
    this.droppedEventCount = 0;
  }
}
