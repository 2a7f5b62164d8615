/**
 * The report's "Fault matrix" (pure): one row per fault, one column per client configuration,
 * each cell the verdict its result carries (`✅ detection / recovery after removal in ms`, `❌`
 * and what failed, or `⚠` when the harness's own part failed), then every finding with its
 * evidence, the cells the harness could not judge and why, the heartbeat judgements of the silent
 * faults, and how each library tells each typed signal. Rows are the descriptors' order
 * (src/scenarios/); the cells are the results' own words (their `details.verdict`): nothing here
 * names a fault.
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
  /** Cells whose harness part failed (⚠), each with its reasons: neither ✅ nor a finding. */
  readonly harness: readonly { readonly cell: string; readonly items: readonly string[] }[];
  readonly cells: number;
  readonly failed_cells: number;
  readonly harness_cells: number;
  readonly notes: readonly string[];
  /** Silent faults on clients with a known heartbeat: which noticed within the protocol's window (two to three intervals), which did not. */
  readonly heartbeat: readonly string[];
}

/** A verdict's class; results written before verdicts had one are ✅ or ❌ by `ok`. */
function classOf(verdict: MatrixVerdict): NonNullable<MatrixVerdict['class']> {
  return verdict.class ?? (verdict.ok ? 'ok' : 'finding');
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
  const listed = (items: (verdict: MatrixVerdict) => readonly string[]) =>
    faults.flatMap((fault) =>
      configurations.flatMap((configuration) => {
        const result = cellOf(fault, configuration.label);
        const verdict = result && verdictOf(result);
        const said = verdict ? items(verdict) : [];
        return said.length === 0 ? [] : [{ cell: `${descriptorOf({ name: fault }).label} × ${configuration.label}`, items: said }];
      }),
    );
  const findings = listed((verdict) => (classOf(verdict) === 'finding' ? verdict.findings : []));
  const harness = listed((verdict) => (classOf(verdict) === 'harness' ? (verdict.harness_problems ?? [verdict.cell]) : []));
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
      const judged = matrixDetailsOf(cellOf(fault, configuration.label))?.heartbeat;
      // A result written before judgements had words: the old window's figures, unjudged here.
      if (!judged?.summary) return [];
      return [`${judged.within ? '✅' : '⚠️'} ${descriptorOf({ name: fault }).label} × ${configuration.label}: ${judged.summary}`];
    }),
  );
  return {
    heartbeat,
    table: markdownTable(['Fault', ...configurations.map((configuration) => configuration.label)], rows, [
      false,
      ...configurations.map(() => false),
    ]),
    findings,
    harness,
    signals,
    cells: cells.length,
    failed_cells: cells.filter((result) => classOf(verdictOf(result)!) === 'finding').length,
    harness_cells: cells.filter((result) => classOf(verdictOf(result)!) === 'harness').length,
    notes: [
      '✅ `detection / recovery`: the slowest thread’s detection (ms from the fault’s own moment: the frame or RST on its connection as the proxy saw it, else the injecting call, an upper bound) and the slowest thread’s recovery (its own message published after the fault’s removal, delivered), timed from the removal as the broker or proxy saw it (a frame such as connection.unblocked, the proxy closing what a silence held: exact; else the undoing call, an upper bound; a fault with nothing to undo: from its own moment); `not told`: the library gave no event, yet the client recovered; `told by its own … refused`: it learned of the fault only when the broker refused what it retried (a re-consume answered 404), not from the fault’s own signal.',
      '❌ what failed: not noticed within the bound, told by the broker (a silence the client should have noticed by its own heartbeat), stopped consuming (not even the harness’s probes delivered), publisher not back, publishes hung (not settled by the end of the settle bound, classed before anything was closed), confirmed messages lost, errors nobody handled, close() that did not return. The findings below give each one’s evidence.',
      '⚠ the harness’s own part failed (the fault not injected, no probe published, a bound of the harness’s own hit): not a verdict on the client, and the run fails. The reasons are listed below.',
      'At every fault’s moment each consumer has one delivery still in its handler: its ack is held from just before the injection until the thread noticed the fault (or the fault was removed), as a handler that takes time would have it, so what a library does with an ack on a dead channel (an error nobody handled, an ack on the wrong channel) shows every run, never by chance. In the acknowledgement timeout’s row the consumer’s handler is stuck instead: it holds every delivery from the injection until the thread noticed the fault (its prefetch window fills, so nothing is in flight on the channel when the broker closes it, every run), and never acks them (the broker requeued them with the channel).',
      '`amqplib` is the control: the harness’s own reconnect loop (which also re-opens closed channels and consumes again). Every other configuration recovers through its library alone; what a library does not do is its finding, not repaired by its adapter.',
    ],
  };
}
