/**
 * @benchmark
 *
 * One summary of network resilience: TCP reset, partition and slow network, each run with the
 * same consumer threads, timed from the injection and from the removal of the fault, with the
 * per-thread detection and recovery counts as measured (nothing assumed).
 */
import { describeReceived } from '../src/client/faults';
import type { FaultSpec } from '../src/faults/kinds/registry';
import { computeRecoveryMetrics, missedOrUnmeasured } from '../src/recovery/metrics';
import { runRecoveryScenario, type RecoveryScenarioOptions } from '../src/recovery/scenario';
import type { Metric, Target } from '../src/results/rawResult';
import { benchContext } from '../fixtures/context';
import { recordResult } from '../fixtures/record';
import { clientFields, forEachClient } from '../fixtures/clients';
import { recoveryProgress } from '../src/report/progress';
import { markedTest } from '../src/testing';

const THREADS = 10;

/** One fault of the summary: its metric-name prefix (the descriptor's `metricPrefixes`), and how it is injected. */
interface Scenario {
  readonly key: string;
  readonly title: string;
  readonly options: { readonly fault: FaultSpec } & Pick<RecoveryScenarioOptions, 'drainTimeoutMs'>;
}

const SCENARIOS: readonly Scenario[] = [
  // Armed before the threads connect (the fault's default): real Toxiproxy then closes their links with a true RST.
  { key: 'rst', title: 'TCP reset (reset_peer)', options: { fault: { kind: 'reset_peer' } } },
  {
    key: 'partition',
    title: 'network partition (timeout 100 ms)',
    options: { fault: { kind: 'partition', options: { timeout_ms: 100 } }, drainTimeoutMs: 100 },
  },
  // A client with a 500 ms deadline treats a network this slow as dead, and must come back once it is fast again.
  {
    key: 'slow_network',
    title: 'slow network (latency 1000 ± 100 ms)',
    options: { fault: { kind: 'latency', options: { latency_ms: 1000, jitter_ms: 100 } }, drainTimeoutMs: 500 },
  },
];

forEachClient((client) =>
  describe('TestNetworkResilienceBenchmarks', () => {
    // `variant`: its reset and partition are the recovery suite's 10-thread rows (bench:clients leaves it out).
    markedTest(['variant'])(
      'test_network_resilience_summary',
      async () => {
        const context = benchContext();
        const fields = clientFields(client);
        const metrics: Record<string, Metric> = {};
        const targets: Target[] = [];
        const rows: Record<string, unknown>[] = [];
        let faultProxy: ReturnType<typeof computeRecoveryMetrics>['faultProxy'] | undefined;
        // From each injection to the last thread back (as the recovery suite counts it); the rest is set-up.
        let measuredMs = 0;
        for (const scenario of SCENARIOS) {
          const outcome = await runRecoveryScenario({
            threads: THREADS,
            client,
            proxy: context.proxy,
            proxiedUrl: context.proxiedUrl,
            directUrl: context.directUrl,
            ...scenario.options,
          });
          const computed = computeRecoveryMetrics(outcome);
          faultProxy = computed.faultProxy;
          measuredMs += (computed.metrics.injection_to_fault_ms?.value ?? 0) + (computed.metrics.full_recovery_latency_ms?.value ?? 0);
          const pick = (name: string) => computed.metrics[name]!;
          for (const name of [
            'error_detection_latency_ms',
            'error_propagation_latency_ms',
            'full_recovery_latency_ms',
            'recovery_after_removal_ms',
            'threads_detected',
            'threads_recovered',
          ]) {
            metrics[`${scenario.key}_${name}`] = pick(name);
          }
          // A slow network is no fault the specification sets a target for.
          if (scenario.key !== 'slow_network')
            targets.push(...computed.targets.map((target) => ({ ...target, metric: `${scenario.key}_${target.metric}` })));
          rows.push({
            scenario: scenario.title,
            detected: `${pick('threads_detected').value}/${THREADS}`,
            recovered: `${pick('threads_recovered').value}/${THREADS}`,
            detection_ms: pick('error_detection_latency_ms').value,
            propagation_ms: pick('error_propagation_latency_ms').value,
            full_recovery_from_injection_ms: pick('full_recovery_latency_ms').value,
            recovery_from_removal_ms: pick('recovery_after_removal_ms').value,
            detection_causes: computed.details.detection_causes,
            reference: computed.details.reference,
            fault: computed.fault,
          });
          const progress = recoveryProgress({
            threads: THREADS,
            detected: pick('threads_detected').value,
            recovered: pick('threads_recovered').value,
            detectionMs: pick('error_detection_latency_ms').value,
            propagationMs: pick('error_propagation_latency_ms').value,
            fullRecoveryMs: pick('full_recovery_latency_ms').value,
            recoveryAfterRemovalMs: pick('recovery_after_removal_ms').value,
            received: describeReceived(computed.fault.received),
            upperBound: !computed.fault.reference.exact,
            removal: computed.fault.removal ?? undefined,
          });
          process.stderr.write(`  ▸ ${scenario.title}: ${progress}\n`);
        }
        recordResult({
          name: 'network_resilience_summary',
          parameters: { threads: THREADS, ...fields.parameters },
          client: fields.client,
          metrics,
          targets,
          details: { scenarios: rows },
          ...(faultProxy ? { fault_proxy: faultProxy } : {}),
          measured_ms: Math.round(measuredMs),
          notes: [
            'each scenario: detection and full recovery timed from the fault moment (details.scenarios[].fault.reference: the proxy timeline, exact, or the start of the injecting API call, an upper bound); recovery also from the removal of the toxic',
          ],
        });
        for (const scenario of SCENARIOS) {
          expect({
            scenario: scenario.key,
            detected: metrics[`${scenario.key}_threads_detected`]!.value,
            recovered: metrics[`${scenario.key}_threads_recovered`]!.value,
          }).toEqual({
            scenario: scenario.key,
            detected: THREADS,
            recovered: THREADS,
          });
        }
        if (context.strictTargets) expect(targets.filter(missedOrUnmeasured)).toEqual([]);
      },
      300_000,
    );
  }),
);
