/**
 * The report's "Fault matrix" (pure): one row per fault, one column per client configuration,
 * each cell the verdict its result carries (`✅ detection / recovery after removal in ms`, or `❌`
 * and what failed), then every finding with its evidence, and how each library tells each typed
 * signal. Rows are the descriptors' order (src/scenarios/); the cells are the results' own words
 * (their `details.verdict`): nothing here names a fault.
 */
import type { RawResult } from '../results/rawResult';
import type { MatrixDetails, MatrixVerdict } from '../schemaTypes';
import { descriptorOf, scenarioRank } from '../scenarios/catalogue';
import { clientConfigurations, configurationOf } from './clientFigures';
import { escapeCell } from './format';
import { markdownTable } from './markdown';

export interface FaultMatrixSection {
  readonly table: string;
  /** `Broker closes the connection × rabbitmq-client (defaults)`, and what failed with its evidence. */
  readonly findings: readonly { readonly cell: string; readonly items: readonly string[] }[];
  /** How each client's library gives each typed signal (`none: ...` where it does not), one line per client. */
  readonly signals: readonly string[];
  readonly cells: number;
  readonly failed_cells: number;
  readonly notes: readonly string[];
  /** Silent faults on clients with a known heartbeat: which noticed within the protocol's window, which did not. */
  readonly heartbeat: readonly string[];
}

/** A matrix cell's details (schemas/matrix-details.schema.json, checked with the raw result); undefined for other results. */
function matrixDetailsOf(result: RawResult | undefined): MatrixDetails | undefined {
  return result?.details?.kind === 'fault_matrix' ? (result.details as unknown as MatrixDetails) : undefined;
}

/** A matrix result's verdict, read from its details (results of other families have none). */
function verdictOf(result: RawResult): MatrixVerdict | undefined {
  return matrixDetailsOf(result)?.verdict;
}

export function buildFaultMatrix(results: readonly RawResult[]): FaultMatrixSection | null {
  const cells = results.filter((result) => verdictOf(result) !== undefined);
  if (cells.length === 0) return null;
  const configurations = clientConfigurations(cells);
  const faults = [...new Set(cells.map((result) => result.name))].sort((a, b) => scenarioRank(a) - scenarioRank(b));
  // The latest result of a (fault, configuration) speaks for it.
  const cellOf = (fault: string, label: string) =>
    cells
      .filter((result) => result.name === fault && configurationOf(result)?.label === label)
      .sort((a, b) => b.timestamp.localeCompare(a.timestamp))[0];
  const rows = faults.map((fault) => [
    descriptorOf({ name: fault }).label,
    ...configurations.map((configuration) => {
      const result = cellOf(fault, configuration.label);
      return result ? escapeCell(verdictOf(result)!.cell) : '—';
    }),
  ]);
  const findings = faults.flatMap((fault) =>
    configurations.flatMap((configuration) => {
      const result = cellOf(fault, configuration.label);
      const verdict = result && verdictOf(result);
      if (!verdict || verdict.findings.length === 0) return [];
      return [{ cell: `${descriptorOf({ name: fault }).label} × ${configuration.label}`, items: verdict.findings }];
    }),
  );
  // Signals are the adapter's, the same in both profiles: one line per client.
  const signals = [...new Map(configurations.map((configuration) => [configuration.name, configuration])).values()].flatMap(
    (configuration) => {
      const client = cells.find((result) => configurationOf(result)?.name === configuration.name)?.client as
        { readonly signals?: Readonly<Record<string, string>> } | undefined;
      if (!client?.signals) return [];
      const said = Object.entries(client.signals).map(([kind, how]) => `${kind.replace(/_/g, ' ')}: ${how}`);
      return [`**${configuration.name}**: ${said.join('; ')}`];
    },
  );
  const heartbeat = faults.flatMap((fault) =>
    configurations.flatMap((configuration) => {
      const result = cellOf(fault, configuration.label);
      const window = matrixDetailsOf(result)?.heartbeat;
      if (!window) return [];
      const noticed =
        window.slowest_detection_ms === null ? 'never noticed' : `noticed after ${(window.slowest_detection_ms / 1000).toFixed(1)} s`;
      return [
        `${window.within ? '✅' : '⚠️'} ${descriptorOf({ name: fault }).label} × ${configuration.label}: ${noticed}; the ${window.interval_s} s heartbeat's window is ${window.window_ms.low / 1000}–${window.window_ms.high / 1000} s${window.within ? '' : ': it does not honour the heartbeat it was given'}`,
      ];
    }),
  );
  return {
    heartbeat,
    table: markdownTable(['Fault', ...configurations.map((configuration) => configuration.label)], rows, [
      false,
      ...configurations.map(() => false),
    ]),
    findings,
    signals,
    cells: cells.length,
    failed_cells: cells.filter((result) => !verdictOf(result)!.ok).length,
    notes: [
      '✅ `detection / recovery`: the slowest thread’s detection (ms from the fault’s own moment: the frame or RST on its connection as the proxy saw it, else the injecting call, an upper bound) and the slowest thread’s recovery after the fault was removed (its own message published after the removal, delivered); `not told`: the library gave no event, yet the client recovered.',
      '❌ what failed: not noticed within the bound, stopped consuming (not even the harness’s probes delivered), publisher not back, publishes hung (not settled after publishing stopped), confirmed messages lost, errors nobody handled, close() that did not return. The findings below give each one’s evidence.',
      '`amqplib` is the control: the harness’s own reconnect loop (which also re-opens closed channels and consumes again). Every other configuration recovers through its library alone; what a library does not do is its finding, not repaired by its adapter.',
    ],
  };
}
