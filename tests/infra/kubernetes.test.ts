/**
 * `bench load --emit-k8s` writes manifests no cluster here can take, so they are checked as the
 * API server would check them: each Job against Kubernetes' own batch/v1 schema (vendored, made
 * strict about unknown fields), then for what the fleet needs (an Indexed Job of N pods never
 * restarted, the coordinator, no credentials, the workload the agents resolve identical to the
 * coordinator's). The check itself is shown to fail on a typo and a wrong type.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PROJECT_ROOT } from '../../src/config';
import { k8sManifests, WORKLOAD_ENV, type K8sManifestOptions } from '../../src/fleet/k8s';
import { parseWorkloadText, resolveWorkloadFile } from '../../src/load/workloadFile';
import { resolveWorkload } from '../../src/load/workload';
import { compileKindValidator } from './kubernetesSchema';

const document = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'schemas/vendor/kubernetes-1.30-batch-v1-openapi.json'), 'utf8'));
const validateJob = compileKindValidator(document, 'io.k8s.api.batch.v1.Job');

const workload = resolveWorkload(
  {
    name: 'fleet_k8s',
    producers: 8,
    consumers: 8,
    queues: 8,
    rate: {
      steps: [
        { rate: 4000, duration: '20s' },
        { rate: 8000, duration: '40s' },
      ],
    },
    size: '100:1000',
    confirm_window: 50,
    ack: 'multiple:10',
    duration: '60s',
    warmup: '5s',
    client: 'rabbitmq-client:normalised',
    faults: [{ fault: 'latency:200ms', at: '20s', length: '5s' }],
  },
  (field, problem) => {
    throw new Error(`${field}: ${problem}`);
  },
);

const options: K8sManifestOptions = {
  runId: 'fleet-k8s-test',
  agents: 8,
  workload,
  image: 'registry.example/amqp-bench:0.1.0',
  secretName: 'amqp-bench-broker',
  viaProxy: true,
  barrierBoundMs: 600_000,
  lingerMs: 3_600_000,
  catchUpMs: 10_000,
  drainMs: 15_000,
};

interface Container {
  readonly command: readonly string[];
  readonly env: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: unknown }[];
}
interface Job {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly completionMode?: string;
    readonly completions?: number;
    readonly parallelism?: number;
    readonly backoffLimit: number;
    readonly template: { readonly spec: { readonly restartPolicy: string; readonly containers: readonly Container[] } };
  };
}

const text = k8sManifests(options);
const manifests = parseAllDocuments(text).map((each) => each.toJS() as Job);
const [agents, coordinator] = manifests as [Job, Job];

describe('the Kubernetes manifests of a fleet', () => {
  test('both Jobs follow Kubernetes’ own batch/v1 schema, strictly', () => {
    expect(manifests).toHaveLength(2);
    for (const manifest of manifests) expect(validateJob(manifest).errors).toEqual([]);
  });

  test('the check fails on an unknown field, a wrong type and a wrong kind', () => {
    const typo = { ...agents, spec: { ...agents.spec, completionmode: 'Indexed' } };
    expect(validateJob(typo).errors).toContain('/spec must NOT have additional properties (completionmode)');
    const wrongType = { ...agents, spec: { ...agents.spec, parallelism: 'eight' } };
    expect(validateJob(wrongType).errors).toContain('/spec/parallelism must be integer');
    expect(validateJob({ ...agents, kind: 'Pod' }).valid).toBe(false);
  });

  test('the agents: an Indexed Job of N pods, none restarted, each told its place by JOB_COMPLETION_INDEX', () => {
    expect(agents.spec).toMatchObject({ completionMode: 'Indexed', completions: 8, parallelism: 8, backoffLimit: 0 });
    expect(agents.spec.template.spec.restartPolicy).toBe('Never');
    const command = agents.spec.template.spec.containers[0]!.command;
    expect(command.slice(0, 3)).toEqual(['amqp-bench', 'load', `env:${WORKLOAD_ENV}`]);
    expect(command).toEqual(expect.arrayContaining(['--agents', '8', '--run-id', 'fleet-k8s-test', '--agent']));
    expect(command[command.indexOf('--agent') + 1]).toBeUndefined(); // no index: the pod's JOB_COMPLETION_INDEX
  });

  test('the coordinator: one pod, the same run, results kept while it lingers', () => {
    expect(coordinator.metadata.name).toBe('fleet-k8s-test-coordinator');
    const command = coordinator.spec.template.spec.containers[0]!.command;
    expect(command).toEqual(
      expect.arrayContaining(['--coordinate', '--agents', '8', '--run-id', 'fleet-k8s-test', '-o', '/results/run', '--linger', '3600s']),
    );
  });

  test('no credentials: the broker comes from a Secret (the comment shows only a placeholder)', () => {
    expect(text).toContain("--from-literal=url='amqp://USER:PASSWORD@HOST:5672/VHOST'");
    expect(text.replaceAll('amqp://USER:PASSWORD@HOST:5672/VHOST', '')).not.toMatch(/amqp:\/\/[^\s'"]*@/);
    for (const manifest of manifests)
      expect(manifest.spec.template.spec.containers[0]!.env).toContainEqual({
        name: 'AMQP_URL',
        valueFrom: { secretKeyRef: { name: 'amqp-bench-broker', key: 'url' } },
      });
  });

  test('the workload each pod reads resolves to the coordinator’s, field for field', () => {
    const carried = agents.spec.template.spec.containers[0]!.env.find((each) => each.name === WORKLOAD_ENV)!.value!;
    expect(resolveWorkloadFile(parseWorkloadText(carried, `env:${WORKLOAD_ENV}`))).toEqual(workload);
  });
});
