/**
 * A fleet on Kubernetes (pure): `bench load --emit-k8s FILE` writes two Jobs for a workload. The
 * agents are one Indexed Job (`completionMode: Indexed`, completions = parallelism = N): the
 * engine places the N pods and gives each its index (JOB_COMPLETION_INDEX), and never restarts
 * one (a second start of an index would run its share twice; the coordinator names a pod that
 * died instead). The coordinator is a Job of one pod that holds the barrier through the broker,
 * merges, and keeps its results folder for `kubectl cp` while it lingers. Nothing here schedules
 * anything: placement, indexes and deadlines are the engine's.
 *
 * No credentials are written: the broker's URL comes from a Secret the user creates. The workload
 * travels in the manifest itself (an environment variable holding the workload file), so the
 * Jobs are the whole of what to apply.
 */
import YAML from 'yaml';
import { workloadInputOf, type LoadWorkload } from '../load/workload';
import { scheduleEndMs } from '../load/workload';

export interface K8sManifestOptions {
  readonly runId: string;
  readonly agents: number;
  readonly workload: LoadWorkload;
  /** An image with amqp-bench installed (`amqp-bench` on its PATH). */
  readonly image: string;
  /** The Secret holding the broker's URL under the key `url`. */
  readonly secretName: string;
  /** Whether the agents go through a fault proxy of their own (a network fault is scheduled). */
  readonly viaProxy: boolean;
  /** How long the coordinator waits for every agent (pods may wait for a node and an image pull). */
  readonly barrierBoundMs: number;
  /** How long the coordinator keeps its results for `kubectl cp` after the run. */
  readonly lingerMs: number;
  readonly catchUpMs: number;
  readonly drainMs: number;
}

/** The environment variable that carries the workload file into each pod. */
export const WORKLOAD_ENV = 'BENCH_LOAD_WORKLOAD';
/** Where the coordinator writes (an emptyDir). */
export const RESULTS_DIR = '/results';

/** The manifests as one YAML stream (agents' Job, then the coordinator's). */
export function k8sManifests(options: K8sManifestOptions): string {
  const documents = [agentsJob(options), coordinatorJob(options)].map((manifest, index) => {
    const document = new YAML.Document(manifest);
    document.commentBefore =
      index === 0
        ? ` amqp-bench fleet ${options.runId}: ${options.agents} agent(s) of workload ${options.workload.name}, one pod per index.\n Needs a Secret: kubectl create secret generic ${options.secretName} --from-literal=url='amqp://USER:PASSWORD@HOST:5672/VHOST'`
        : ` The coordinator: the start barrier (through the broker), the merge, results in ${RESULTS_DIR} for kubectl cp while it lingers.`;
    return document.toString({ lineWidth: 0 });
  });
  return documents.join('---\n');
}

/** The seconds a Job may run: the barrier, the schedule, catch-up, drain, teardown and (coordinator) the linger. */
export function activeDeadlineSeconds(options: K8sManifestOptions, role: 'agent' | 'coordinator'): number {
  const runMs = options.barrierBoundMs + scheduleEndMs(options.workload) + options.catchUpMs + options.drainMs + 120_000;
  return Math.ceil((runMs + (role === 'coordinator' ? options.lingerMs : 0)) / 1000);
}

function labels(options: K8sManifestOptions, role: 'agent' | 'coordinator'): Record<string, string> {
  return { 'app.kubernetes.io/name': 'amqp-bench', 'amqp-bench/run': options.runId, 'amqp-bench/role': role };
}

function env(options: K8sManifestOptions): object[] {
  return [
    { name: 'AMQP_URL', valueFrom: { secretKeyRef: { name: options.secretName, key: 'url' } } },
    { name: WORKLOAD_ENV, value: YAML.stringify(workloadInputOf(options.workload)) },
  ];
}

function commonArgs(options: K8sManifestOptions): string[] {
  return [
    'load',
    `env:${WORKLOAD_ENV}`,
    '--agents',
    String(options.agents),
    '--run-id',
    options.runId,
    '--barrier-timeout',
    `${Math.ceil(options.barrierBoundMs / 1000)}s`,
    '--catch-up',
    `${options.catchUpMs}ms`,
    ...(options.viaProxy ? [] : ['--no-proxy']),
  ];
}

function agentsJob(options: K8sManifestOptions): object {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${options.runId}-agents`, labels: labels(options, 'agent') },
    spec: {
      completionMode: 'Indexed',
      completions: options.agents,
      parallelism: options.agents,
      backoffLimit: 0,
      activeDeadlineSeconds: activeDeadlineSeconds(options, 'agent'),
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels: labels(options, 'agent') },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'agent',
              image: options.image,
              // `--agent` without an index takes JOB_COMPLETION_INDEX, which the Indexed Job sets in each pod.
              command: ['amqp-bench', ...commonArgs(options), '--agent'],
              env: env(options),
              resources: { requests: { cpu: '500m', memory: '256Mi' } },
            },
          ],
        },
      },
    },
  };
}

function coordinatorJob(options: K8sManifestOptions): object {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${options.runId}-coordinator`, labels: labels(options, 'coordinator') },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: activeDeadlineSeconds(options, 'coordinator'),
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels: labels(options, 'coordinator') },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'coordinator',
              image: options.image,
              command: [
                'amqp-bench',
                ...commonArgs(options),
                '--coordinate',
                '-o',
                `${RESULTS_DIR}/run`,
                '--linger',
                `${Math.ceil(options.lingerMs / 1000)}s`,
              ],
              env: [...env(options), { name: 'BENCH_REPORTS_DIR', value: `${RESULTS_DIR}/reports` }],
              volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR }],
              resources: { requests: { cpu: '250m', memory: '256Mi' } },
            },
          ],
          volumes: [{ name: 'results', emptyDir: {} }],
        },
      },
    },
  };
}
