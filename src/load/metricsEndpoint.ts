/**
 * `--metrics-port PORT`: the run's figures live as an OpenMetrics/Prometheus endpoint
 * (prom-client), read from the recorder on each scrape; closed at the end of the run.
 */
import http from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';
import type { LoadRecorder } from './recorder';
import type { TimeSeriesPoint } from './timeseries';

export interface MetricsSources {
  readonly recorder: LoadRecorder;
  outstandingConfirms(): number;
  connectionsUp(): number;
  faultState(): string;
  /** The last time-series point (its per-interval percentiles). */
  lastPoint(): TimeSeriesPoint | undefined;
}

export interface MetricsEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `GET /metrics` on 127.0.0.1:`port` (0 = any free port). */
export async function startMetricsEndpoint(port: number, sources: MetricsSources): Promise<MetricsEndpoint> {
  const registry = new Registry();
  const totals = sources.recorder.totals;
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  const gauge = (name: string, help: string, read: () => number | null) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const value = read();
        if (value !== null) this.set(value);
      },
    });
  counter('amqp_bench_load_published_total', 'Messages handed to the client publish', () => totals.published);
  counter('amqp_bench_load_confirmed_total', 'Publisher confirms received', () => totals.confirmed);
  counter('amqp_bench_load_consumed_total', 'Deliveries consumed (duplicates included)', () => totals.consumed);
  counter('amqp_bench_load_publish_failed_total', 'Publishes that failed (in doubt)', () => totals.publishFailed);
  gauge('amqp_bench_load_outstanding_confirms', 'Publishes awaiting their confirm (or socket write)', () => sources.outstandingConfirms());
  gauge('amqp_bench_load_connections_up', 'Client connections up', () => sources.connectionsUp());
  gauge('amqp_bench_load_e2e_p99_seconds', 'End-to-end latency p99 of the last interval, from the intended send time', () =>
    seconds(sources.lastPoint()?.e2e_p99_ms),
  );
  gauge('amqp_bench_load_confirm_p99_seconds', 'Confirm latency p99 of the last interval, from the intended send time', () =>
    seconds(sources.lastPoint()?.confirm_p99_ms),
  );
  new Gauge({
    name: 'amqp_bench_load_fault_active',
    help: 'Faults in place (1), by fault',
    labelNames: ['fault'],
    registers: [registry],
    collect() {
      this.reset();
      const state = sources.faultState();
      if (state !== 'none') for (const fault of state.split('+')) this.set({ fault }, 1);
    },
  });
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || !request.url?.startsWith('/metrics')) {
      response.writeHead(404).end('see /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${bound}/metrics`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function seconds(ms: number | null | undefined): number | null {
  return ms === null || ms === undefined ? null : ms / 1000;
}
