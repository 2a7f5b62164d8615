import fs from 'node:fs';
import path from 'node:path';
import { RECEIVED_KINDS } from '../../src/client/faults';
import { ToxiproxyClient } from '../../src/faults';
import { createFault, FAULT_KIND_NAMES, faultDefinition, FAULTS, parseFaultArgument } from '../../src/faults/kinds/registry';
import { MATRIX_ROWS } from '../../src/scenarios/matrix';

const proxy = { client: new ToxiproxyClient('http://127.0.0.1:9'), name: 'p' };
const KINDS_DIR = path.join(__dirname, '../../src/faults/kinds');

/** Every fault definition a file of src/faults/kinds/ exports (a helper file exports none). */
function definitionsInFolder(): unknown[] {
  return fs
    .readdirSync(KINDS_DIR)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- every file of the folder, found by scanning
      Object.values(require(path.join(KINDS_DIR, name)) as Record<string, unknown>).filter(
        (value) => typeof value === 'object' && value !== null && 'kind' in value && 'create' in value,
      ),
    );
}

describe('the fault registry', () => {
  it('lists every fault of src/faults/kinds/ once, network faults first', () => {
    const defined = definitionsInFolder();
    expect(defined.length).toBeGreaterThanOrEqual(12);
    expect(defined.filter((definition) => !FAULTS.has((definition as { kind: string }).kind))).toEqual([]);
    expect(FAULT_KIND_NAMES).toHaveLength(defined.length);
    expect(new Set(FAULT_KIND_NAMES).size).toBe(FAULT_KIND_NAMES.length);
    expect(FAULT_KIND_NAMES.slice(0, 4)).toEqual(['reset_peer', 'partition', 'latency', 'dead_peer']);
    for (const definition of FAULTS.values()) {
      expect(definition.label).not.toBe('');
      expect(definition.description).not.toBe('');
      // Defaults parse back to themselves for a fault without an argument.
      if (definition.argument === null) expect(definition.parse(undefined)).toEqual(definition.defaults);
    }
  });

  it('derives the fault matrix from the registry: one row per fault with a `matrix` field, in its order', () => {
    const withRows = [...FAULTS.values()].filter((definition) => definition.matrix !== undefined).map((definition) => definition.kind);
    expect(MATRIX_ROWS.map((row) => row.fault)).toEqual(withRows);
    expect(withRows).toEqual([
      'dead_peer',
      'broker_close',
      'channel_error',
      'consumer_cancel',
      'ack_timeout',
      'alarm',
      'node_pause',
      'broker_restart',
    ]);
    for (const row of MATRIX_ROWS)
      for (const profile of ['defaults', 'normalised'] as const) {
        const bounds = row.bounds(profile);
        expect(bounds.detectionBoundMs).toBeGreaterThan(0);
        expect(bounds.recoveryBoundMs).toBeGreaterThan(0);
      }
    // A silence only heartbeats notice meets several phases of the interval; its defaults cells are slow.
    expect(MATRIX_ROWS.filter((row) => row.heartbeatPhases).map((row) => [row.fault, row.slowProfiles])).toEqual([
      ['dead_peer', ['defaults']],
      ['node_pause', ['defaults']],
    ]);
  });

  it('reads `KIND[:ARG]` as on a command line, with durations in their units', () => {
    expect(parseFaultArgument('latency:200ms')).toEqual({ kind: 'latency', options: { latency_ms: 200, jitter_ms: 0, armed: false } });
    expect(parseFaultArgument('latency:1s~50ms')).toEqual({ kind: 'latency', options: { latency_ms: 1000, jitter_ms: 50, armed: false } });
    expect(parseFaultArgument('reset_peer')).toEqual({ kind: 'reset_peer', options: { timeout_ms: 0, armed: true } });
    expect(parseFaultArgument('partition:0')).toEqual({ kind: 'partition', options: { timeout_ms: 0 } });
    expect(parseFaultArgument('broker_close')).toEqual({ kind: 'broker_close', options: {} });
    expect(parseFaultArgument('broker_restart')).toEqual({ kind: 'broker_restart', options: { down_ms: 3000 } });
    expect(parseFaultArgument('broker_restart:10s')).toEqual({ kind: 'broker_restart', options: { down_ms: 10_000 } });
  });

  it('says what is wrong with a kind or an argument, and what it takes', () => {
    expect(() => parseFaultArgument('lag:200ms')).toThrow(/fault kind must be one of reset_peer, partition, latency/);
    expect(() => parseFaultArgument('latency:soon')).toThrow(/--fault latency:<delay> must be a duration such as 200ms, 5s or 1m/);
    expect(() => parseFaultArgument('broker_close:now')).toThrow(/--fault broker_close must be given without an argument/);
  });

  it('builds a fault against what the suite gives, and names what is missing', () => {
    const fault = createFault({ kind: 'partition', options: { timeout_ms: 0 } }, { proxy });
    expect(fault.target).toEqual({ type: 'proxy_entry', name: 'p' });
    expect(fault.parameters).toEqual({ timeout_ms: 0 });
    expect(() => createFault({ kind: 'broker_close' }, { proxy })).toThrow(/fault broker_close must be given actions on the broker/);
    expect(() => createFault({ kind: 'node_pause' }, { proxy })).toThrow(/a broker node of the harness/);
    expect(faultDefinition('consumer_cancel').expected).toBe('consumer_cancelled');
  });

  it('records the toxic a proxy fault is made of, as the kind builds it', () => {
    expect(createFault({ kind: 'partition' }, { proxy }).toxic).toBe('timeout');
    expect(createFault({ kind: 'dead_peer' }, { proxy }).toxic).toBe('timeout');
    expect(createFault({ kind: 'reset_peer' }, { proxy }).toxic).toBe('reset_peer');
    expect(createFault({ kind: 'latency' }, { proxy }).toxic).toBe('latency');
  });

  it('says which broker each kind can act on: the shared one, a node of its own or the cluster', () => {
    const brokerOf = (kind: string) => faultDefinition(kind).broker;
    expect([
      brokerOf('reset_peer'),
      brokerOf('broker_close'),
      brokerOf('alarm'),
      brokerOf('node_pause'),
      brokerOf('rolling_restart'),
    ]).toEqual(['shared', 'shared', 'own_node', 'own_node', 'cluster']);
    // A fault that acts on a whole node never runs on the shared broker.
    for (const definition of FAULTS.values()) if (definition.layer === 'node') expect(definition.broker).not.toBe('shared');
  });

  it('keeps no list of kinds in the raw result schema: the registry is the one list', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../schemas/raw-result.schema.json'), 'utf8'));
    const kind = schema.$defs.fault.properties.kind;
    for (const name of FAULT_KIND_NAMES) {
      expect(name).toMatch(new RegExp(kind.pattern));
      expect(kind.description).not.toContain(name);
    }
  });

  it('knows what a client may receive once: the raw result schema lists the same kinds', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../schemas/raw-result.schema.json'), 'utf8'));
    expect([...schema.$defs.faultKind.enum].sort()).toEqual([...RECEIVED_KINDS].sort());
  });
});
