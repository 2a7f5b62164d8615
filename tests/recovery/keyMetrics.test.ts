/** How recovery figures show in the key metrics: which proxy, exact or upper bound, and RST only when it was one. */
import { extractKeyMetrics } from '../../src/results/keyMetrics';
import type { RawResult } from '../../src/results/rawResult';
import type { Fault } from '../../src/schemaTypes';

const TOXIPROXY = { kind: 'toxiproxy', version: '2.12.0', label: 'Toxiproxy 2.12.0' } as const;
const EMBEDDED = { kind: 'embedded', version: '2.12.0', label: 'embedded proxy (Toxiproxy 2.12.0 API)' } as const;

function fault(exact: boolean, received: Record<string, number>): Fault {
  const perThread = Object.entries(received).flatMap(([kind, count]) =>
    Array.from({ length: count }, () => kind),
  ) as Fault['received_per_thread'];
  return {
    toxic: 'reset_peer',
    injection: 'armed',
    reference: exact
      ? { source: 'proxy_timeline', exact: true, description: 'proxy fault timeline (first RST sent)' }
      : {
          source: 'api_call_start',
          exact: false,
          description: 'start of the injecting API call: every latency timed from it is an upper bound',
        },
    received,
    received_per_thread: perThread,
    expected: 'reset',
    as_expected: Object.keys(received).every((kind) => kind === 'reset'),
    removal: 'deleted',
  };
}

function resetPeerResult(
  threads: number,
  faultProxy: RawResult['fault_proxy'],
  resultFault: Fault,
  met: boolean | null,
  reason?: string,
): RawResult {
  return {
    schema_version: 1,
    name: 'recovery_after_reset_peer',
    category: 'recovery',
    test_id: `benchmarks/bench_recovery_latency.bench.ts::TestRecoveryLatency::test_recovery_after_reset_peer[${threads}]`,
    parameters: { threads },
    metrics: { error_detection_latency_ms: { value: 4.2, unit: 'ms', direction: 'lower' } },
    targets: [{ metric: 'error_detection_latency_ms', comparator: '<', threshold: 10, unit: 'ms', met, ...(reason ? { reason } : {}) }],
    fault_proxy: faultProxy,
    fault: resultFault,
    timestamp: '2026-11-22T12:00:00.000Z',
    fingerprint: 'abcdef12',
  };
}

describe('recovery key metrics', () => {
  it('scores an exact RST figure and names the proxy that produced it', () => {
    const [metric] = extractKeyMetrics([resetPeerResult(10, EMBEDDED, fault(true, { reset: 10 }), true)]);
    expect(metric).toMatchObject({
      id: 'rst_detection',
      label: 'TCP reset: detection (first thread)',
      met: true,
      met_reason: null,
      fault_proxy: 'embedded proxy (Toxiproxy 2.12.0 API)',
      reference: 'exact',
    });
  });

  it('labels an upper bound as one and leaves it unscored, with the reason', () => {
    const reason =
      'an upper bound: timed from the start of the injecting API call (this proxy has no fault timeline), not scored against the exact-moment target';
    const [metric] = extractKeyMetrics([resetPeerResult(10, TOXIPROXY, fault(false, { reset: 10 }), null, reason)]);
    expect(metric).toMatchObject({
      id: 'rst_detection',
      label: 'TCP reset: detection (first thread) (upper bound)',
      value: 4.2,
      target: { comparator: '<', threshold: 10, unit: 'ms' },
      met: null,
      met_reason: reason,
      fault_proxy: 'Toxiproxy 2.12.0',
      reference: 'upper_bound',
    });
  });

  it('does not call a figure TCP RST detection when the clients received FIN', () => {
    const [metric] = extractKeyMetrics([resetPeerResult(10, TOXIPROXY, fault(false, { closed: 10 }), null, 'not an RST')]);
    expect(metric).toMatchObject({
      id: 'reset_peer_detection',
      label: 'reset_peer toxic: detection (first thread) (clients received FIN ×10, not RST only)',
      target: null,
      met: null,
      met_reason: 'the clients received FIN ×10: not a figure of RST only',
    });
  });

  it('leaves figures without a fault as they were (no proxy, no reference)', () => {
    const throughput: RawResult = {
      schema_version: 1,
      name: 'publish_throughput',
      category: 'throughput',
      test_id: 'benchmarks/bench_throughput.bench.ts::TestPublishThroughput::test_publish_throughput[1]',
      parameters: { threads: 1 },
      metrics: { throughput_msgs_per_sec: { value: 1000, unit: 'msg/s', direction: 'higher' } },
      timestamp: '2026-11-22T12:00:00.000Z',
      fingerprint: 'abcdef12',
    };
    expect(extractKeyMetrics([throughput])[0]).toMatchObject({ fault_proxy: null, reference: null, met_reason: null });
  });
});
