/**
 * Extension endpoints (not in Toxiproxy; real Toxiproxy answers 404 to them):
 *
 * - `GET /proxies/{p}/events[?since=<ns>]`: the fault timeline, what each toxic really did
 *   and when, in `process.hrtime.bigint()` nanoseconds serialized as decimal strings
 *   (JSON numbers cannot hold them exactly). `since` keeps events at or after that time.
 * - `DELETE /proxies/{p}/events`: forgets the events and the closed connections (204).
 * - `GET /proxies/{p}/connections`: each proxied connection, open or recently closed, with
 *   when it opened and closed and why.
 */
import { apiErrors } from '../apiErrors';
import type { ConnectionRecord, FaultEvent } from '../timeline';
import type { ApiRequest, Handler } from './types';

/** One event as the API shows it (snake_case, like the rest of the Toxiproxy API). */
export interface FaultEventJson {
  readonly seq: number;
  readonly at_ns: string;
  readonly proxy: string;
  readonly toxic: string;
  readonly toxic_type: string;
  readonly stream: string;
  readonly connection_id: number;
  readonly kind: string;
  readonly detail: Readonly<Record<string, number | string>>;
}

export function faultEventJson(event: FaultEvent): FaultEventJson {
  return {
    seq: event.seq,
    at_ns: event.atNs.toString(),
    proxy: event.proxy,
    toxic: event.toxic,
    toxic_type: event.toxicType,
    stream: event.stream,
    connection_id: event.connectionId,
    kind: event.kind,
    detail: event.detail,
  };
}

function connectionJson(record: ConnectionRecord): Record<string, unknown> {
  return {
    id: record.id,
    client: record.client,
    upstream: record.upstream,
    opened_at_ns: record.openedAtNs.toString(),
    upstream_connected_at_ns: record.upstreamConnectedAtNs?.toString() ?? null,
    closed_at_ns: record.closedAtNs?.toString() ?? null,
    close_reason: record.closeReason ?? null,
    close_error: record.closeError ?? null,
    bytes_upstream: record.bytesUpstream,
    bytes_downstream: record.bytesDownstream,
  };
}

function sinceParam(request: ApiRequest): bigint | undefined {
  const raw = request.query.get('since');
  if (raw === null) return undefined;
  if (!/^\d{1,20}$/.test(raw))
    throw apiErrors.badQuery(
      `since must be nanoseconds of process.hrtime.bigint() as a decimal integer (e.g. since=1234567890); got ${JSON.stringify(raw)}`,
    );
  return BigInt(raw);
}

export const eventIndex: Handler = (request, { collection }) => {
  const proxy = collection.get(request.params.proxy ?? '');
  const since = sinceParam(request);
  return {
    status: 200,
    body: {
      proxy: proxy.name,
      now_ns: process.hrtime.bigint().toString(),
      dropped_events: proxy.timeline.droppedEvents,
      events: proxy.timeline.events(since).map(faultEventJson),
    },
  };
};

export const eventClear: Handler = (request, { collection }) => {
  collection.get(request.params.proxy ?? '').timeline.clear();
  return { status: 204 };
};

export const connectionIndex: Handler = (request, { collection }) => {
  const proxy = collection.get(request.params.proxy ?? '');
  return {
    status: 200,
    body: { proxy: proxy.name, now_ns: process.hrtime.bigint().toString(), connections: proxy.connectionRecords().map(connectionJson) },
  };
};
