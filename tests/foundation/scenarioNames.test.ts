/**
 * The report and the results never name a scenario or a fault themselves: they read
 * the scenario descriptors (src/scenarios/) and the fault registry (src/faults/kinds/), so a new
 * scenario is a row and a new fault a file. A scan of every string in src/report and src/results
 * (TypeScript's scanner: string and template literals, not comments) for a result family or a fault
 * kind. A fault kind that is also a plain word (`latency`, `partition`, `alarm`) counts only where it
 * is compared (`=== 'latency'`, `case 'latency'`), not as a chart's data field.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { FAULT_KIND_NAMES } from '../../src/faults/kinds/registry';
import { SCENARIOS } from '../../src/scenarios/catalogue';

const ROOT = path.resolve(__dirname, '../..');
const SCANNED = ['src/report', 'src/results'];

/** Every string (literal, or part of a template) of a source file, with whether it is compared to something. */
function stringsOf(source: string): { readonly text: string; readonly compared: boolean }[] {
  const file = ts.createSourceFile('scanned.ts', source, ts.ScriptTarget.Latest, true);
  const found: { text: string; compared: boolean }[] = [];
  const comparisons = new Set([
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
  ]);
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const parent = node.parent;
      const compared = (ts.isBinaryExpression(parent) && comparisons.has(parent.operatorToken.kind)) || ts.isCaseClause(parent);
      found.push({ text: node.text, compared });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function violationsIn(file: string, source: string): string[] {
  const families = SCENARIOS.map((descriptor) => descriptor.name);
  const faults = FAULT_KIND_NAMES;
  const found: string[] = [];
  for (const { text, compared } of stringsOf(source)) {
    const family = families.find((name) => new RegExp(`(^|[^a-z_])${name}($|[^a-z0-9_])`).test(text));
    if (family) found.push(`${file}: "${text}" names the scenario ${family}`);
    const fault = faults.find((kind) => text === kind && (kind.includes('_') || compared));
    if (fault) found.push(`${file}: "${text}" names the fault ${fault}`);
  }
  return found;
}

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

describe('the report and the results name no scenario and no fault', () => {
  it('catches a name in code, and not in a comment or a metric name', () => {
    expect(violationsIn('x.ts', "const a = 'recovery_after_reset_peer';")).toHaveLength(1);
    expect(violationsIn('x.ts', 'const a = `${x} recovery_after_reset_peer`;')).toHaveLength(1);
    expect(violationsIn('x.ts', "if (kind === 'latency') {}")).toHaveLength(1);
    expect(violationsIn('x.ts', "const f = { field: 'latency' }; const g = 'broker_close';")).toEqual([
      'x.ts: "broker_close" names the fault broker_close',
    ]);
    expect(violationsIn('x.ts', "// recovery_after_reset_peer\nconst m = 'recovery_after_removal_ms';")).toEqual([]);
  });

  it('holds for every file of src/report and src/results', () => {
    const found = SCANNED.flatMap(sources).flatMap((file) => violationsIn(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
