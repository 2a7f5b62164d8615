/**
 * compose.yaml, checked the way `docker compose config` would check it (no Docker engine runs
 * here): the YAML parses cleanly, it validates against the Compose Specification's schema, and
 * it says what the harness relies on (ports, health checks, start order, the proxy's upstream).
 */
import fs from 'node:fs';
import path from 'node:path';
import { editedCopy } from '../support/documents';
import { parseDocument } from 'yaml';
import { DEFAULTS, PROJECT_ROOT, parseHostPort } from '../../src/config';
import { CLUSTER_DEFAULTS } from '../../src/broker/nodes/settings';
import { compileComposeValidator } from './composeSchema';

interface PortMapping {
  readonly hostIp: string | undefined;
  readonly published: number;
  readonly target: number;
}

interface ComposeService {
  readonly image?: string;
  readonly profiles?: readonly string[];
  readonly hostname?: string;
  readonly environment?: Readonly<Record<string, string>>;
  readonly command?: string | readonly string[];
  readonly ports?: readonly (string | number)[];
  readonly volumes?: readonly string[];
  readonly depends_on?: readonly string[] | Readonly<Record<string, { readonly condition: string }>>;
  readonly healthcheck?: { readonly test?: string | readonly string[]; readonly interval?: string; readonly retries?: number };
}

interface ComposeFile {
  readonly services: Readonly<Record<string, ComposeService>>;
}

interface ToxiproxyEntry {
  readonly name: string;
  readonly listen: string;
  readonly upstream: string;
  readonly enabled?: boolean;
}

const COMPOSE_PATH = path.join(PROJECT_ROOT, 'compose.yaml');
const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;
const validateCompose = compileComposeValidator(readJson(path.join(PROJECT_ROOT, 'schemas/vendor/compose-spec.json')));

function loadYaml(text: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const problems = [...document.errors, ...document.warnings].map((problem) => problem.message);
  if (problems.length > 0) throw new Error(`compose.yaml does not parse cleanly:\n${problems.join('\n')}`);
  return document.toJS();
}

/** The short `ports` syntax: `[ip:]published:target[/protocol]` (no ranges are used here). */
function parsePort(spec: string | number): PortMapping {
  const match = /^(?:(.+):)?(\d+):(\d+)(?:\/tcp)?$/.exec(String(spec));
  if (!match) throw new Error(`unexpected port mapping ${JSON.stringify(spec)}: publish as [ip:]host:container`);
  return { hostIp: match[1], published: Number(match[2]), target: Number(match[3]) };
}

const portOf = (url: string): number => Number(new URL(url).port);
const text = fs.readFileSync(COMPOSE_PATH, 'utf8');
const compose = loadYaml(text) as ComposeFile;
const broker = compose.services.rabbitmq;
const toxiproxy = compose.services.toxiproxy;

describe('compose.yaml: schema', () => {
  it('validates against the Compose Specification schema', () => {
    const result = validateCompose(compose);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  // The schema check is only worth something if it can fail: a few mistakes people make.
  it.each([
    ['a misspelt health-check key', ['services', 'rabbitmq', 'healthcheck', 'intervall'], '5s'],
    ['an unknown depends_on condition', ['services', 'toxiproxy', 'depends_on', 'rabbitmq', 'condition'], 'service_ready'],
    ['a duration without a unit', ['services', 'rabbitmq', 'healthcheck', 'interval'], '5'],
    ['a port mapping that is not one', ['services', 'toxiproxy', 'ports'], ['8474:eighty']],
    ['a service key Compose does not know', ['services', 'rabbitmq', 'healthchecks'], {}],
  ] as const)('rejects %s', (_label, keys, value) => {
    const broken = editedCopy(compose, keys, value);
    const result = validateCompose(broken);
    expect(result.valid).toBe(false);
    expect(result.errors.length).toBeGreaterThan(0);
  });

  it('has no duplicate keys and no YAML warnings', () => {
    expect(() => loadYaml(`${text}\nservices: {}\n`)).toThrow(/not parse cleanly/);
    expect(() => loadYaml(text)).not.toThrow();
  });
});

describe('compose.yaml: what the harness relies on', () => {
  it('runs exactly the broker and the proxy by default, from the agreed images (the cluster nodes only in their profile)', () => {
    const byDefault = Object.entries(compose.services).filter(([, service]) => service.profiles === undefined);
    expect(byDefault.map(([name]) => name).sort()).toEqual(['rabbitmq', 'toxiproxy']);
    expect(broker?.image).toBe('rabbitmq:3-management');
    expect(toxiproxy?.image).toBe('ghcr.io/shopify/toxiproxy');
  });

  it("publishes the ports the harness's defaults expect, on this machine only", () => {
    const brokerPorts = (broker?.ports ?? []).map(parsePort);
    const proxyPorts = (toxiproxy?.ports ?? []).map(parsePort);
    const published = (ports: PortMapping[]) => ports.map((port) => port.published).sort((a, b) => a - b);
    expect(published(brokerPorts)).toEqual([5672, 15672]);
    expect(published(proxyPorts)).toEqual([8474, 25672]);
    for (const port of [...brokerPorts, ...proxyPorts]) {
      expect(port.target).toBe(port.published);
      expect(port.hostIp).toBe('127.0.0.1');
    }
    expect(brokerPorts.map((port) => port.published)).toContain(portOf(DEFAULTS.amqpUrl));
    expect(proxyPorts.map((port) => port.published)).toContain(portOf(DEFAULTS.proxyApiUrl));
    expect(proxyPorts.map((port) => port.published)).toContain(parseHostPort('default', DEFAULTS.proxyListen).port);
  });

  it('health-checks both services with commands their images have', () => {
    expect(broker?.healthcheck?.test).toEqual(['CMD', 'rabbitmq-diagnostics', '-q', 'ping']);
    // ghcr.io/shopify/toxiproxy has no shell and no curl, but ships its own CLI.
    expect(toxiproxy?.healthcheck?.test).toEqual(['CMD', '/toxiproxy-cli', 'list']);
    for (const service of [broker, toxiproxy]) {
      expect(service?.healthcheck?.interval).toMatch(/^\d+s$/);
      expect(service?.healthcheck?.retries).toBeGreaterThan(0);
    }
  });

  it('starts the proxy only once the broker is healthy', () => {
    expect(toxiproxy?.depends_on).toEqual({ rabbitmq: { condition: 'service_healthy' } });
    for (const [name, service] of Object.entries(compose.services)) {
      const needs = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const other of needs)
        expect({ service: name, dependsOn: other, defined: other in compose.services }).toEqual({
          service: name,
          dependsOn: other,
          defined: true,
        });
    }
  });

  it('starts Toxiproxy with its API on every interface and the proxy entries of the mounted config', () => {
    const command = toxiproxy?.command;
    expect(Array.isArray(command)).toBe(true);
    const flags = command as readonly string[];
    // A command replaces the image's default `-host=0.0.0.0`; without it the API stays inside the container.
    expect(flags).toContain('-host=0.0.0.0');
    const configFlag = flags.find((flag) => flag.startsWith('-config='));
    expect(configFlag).toBeDefined();
    const mountTarget = configFlag!.slice('-config='.length);
    const mount = (toxiproxy?.volumes ?? []).map((volume) => volume.split(':')).find(([, target]) => target === mountTarget);
    expect(mount).toBeDefined();
    expect(fs.existsSync(path.resolve(PROJECT_ROOT, mount![0]!))).toBe(true);
  });

  it('points the proxy entry the benchmarks use at the broker service', () => {
    const configVolume = (toxiproxy?.volumes ?? []).find((volume) => volume.includes('toxiproxy.json'));
    const entries = readJson<ToxiproxyEntry[]>(path.resolve(PROJECT_ROOT, configVolume!.split(':')[0]!));
    const entry = entries.find((candidate) => candidate.name === DEFAULTS.proxyName);
    expect(entry).toBeDefined();
    // Inside the compose network the broker is its service name on its container port, never localhost.
    const brokerTarget = parsePort(broker!.ports!.find((port) => parsePort(port).published === portOf(DEFAULTS.amqpUrl))!).target;
    expect(entry!.upstream).toBe(`rabbitmq:${brokerTarget}`);
    // It listens on every interface of its container, on the port compose publishes.
    const listen = parseHostPort('listen', entry!.listen);
    expect(listen.host).toBe('0.0.0.0');
    expect((toxiproxy?.ports ?? []).map(parsePort).map((port) => port.target)).toContain(listen.port);
    expect(entry!.enabled ?? true).toBe(true);
  });
});

describe('compose.yaml: the cluster profile', () => {
  const names = ['rabbit-a', 'rabbit-b', 'rabbit-c'];
  const nodes = names.map((name) => [name, compose.services[name]] as const);

  it('adds three rabbitmq:3-management nodes, only in the "cluster" profile', () => {
    const profiled = Object.entries(compose.services).filter(([, service]) => service.profiles !== undefined);
    expect(profiled.map(([name]) => name).sort()).toEqual(names);
    for (const [name, service] of nodes) {
      expect({ name, image: service?.image, profiles: service?.profiles, hostname: service?.hostname }).toEqual({
        name,
        image: 'rabbitmq:3-management',
        profiles: ['cluster'],
        hostname: name,
      });
    }
  });

  it('publishes AMQP on the ports of the local cluster (npm run cluster:up), on this machine only', () => {
    nodes.forEach(([, service], index) => {
      const ports = (service?.ports ?? []).map(parsePort);
      const amqp = ports.find((port) => port.target === 5672);
      expect(amqp).toEqual({ hostIp: '127.0.0.1', published: CLUSTER_DEFAULTS.firstAmqpPort + index, target: 5672 });
      for (const port of ports) expect(port.hostIp).toBe('127.0.0.1');
    });
  });

  it('gives every node the same cookie and the config that names the three nodes, and starts b and c once a is healthy', () => {
    const cookies = new Set(nodes.map(([, service]) => service?.environment?.RABBITMQ_ERLANG_COOKIE));
    expect(cookies.size).toBe(1);
    expect([...cookies][0]).toMatch(/^[A-Za-z0-9-]{16,}$/);
    for (const [name, service] of nodes) {
      const mount = (service?.volumes ?? [])
        .map((volume) => volume.split(':'))
        .find(([, target]) => target?.startsWith('/etc/rabbitmq/conf.d/'));
      expect({ name, mounted: mount !== undefined }).toEqual({ name, mounted: true });
      const config = fs.readFileSync(path.resolve(PROJECT_ROOT, mount![0]!), 'utf8');
      expect(config).toContain('cluster_formation.peer_discovery_backend = classic_config');
      for (const [index, other] of names.entries())
        expect(config).toContain(`cluster_formation.classic_config.nodes.${index + 1} = rabbit@${other}`);
      expect(service?.healthcheck?.test).toEqual(['CMD', 'rabbitmq-diagnostics', '-q', 'check_running']);
    }
    expect(compose.services['rabbit-a']?.depends_on).toBeUndefined();
    for (const name of ['rabbit-b', 'rabbit-c'])
      expect(compose.services[name]?.depends_on).toEqual({ 'rabbit-a': { condition: 'service_healthy' } });
  });

  it('rejects a profile that is not a list (the schema check covers the new services too)', () => {
    const broken = editedCopy(compose, ['services', 'rabbit-a', 'profiles'], 'cluster');
    expect(validateCompose(broken).valid).toBe(false);
  });
});
