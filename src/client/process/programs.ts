/**
 * Client programs (adapters/<language>/) as client libraries like the Node ones: a folder under
 * src/client/ declares one with `programLibrary(name, how to start it)` in its library.ts, and
 * src/client/registry.ts lists it. Here: how to start a Python or a Go program, and what to install
 * where its runtime or library is missing. BENCH_PYTHON points the Python ones at an interpreter
 * of the user's own; BENCH_GO_CLIENT_DIR the Go one at a build of their own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../packageRoot';
import { defineClientLibrary } from '../api';
import { programAdapter, type ProgramCommand } from './adapter';
import { describeProgram } from './describe';

const SETUP = 'bash scripts/setup-clients.sh installs it from Debian';

/** Debian's python3 (where python3-kombu and friends install), unless BENCH_PYTHON names another interpreter. */
export function pythonInterpreter(): string {
  const chosen = process.env.BENCH_PYTHON;
  if (chosen !== undefined && chosen !== '') return chosen;
  return fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/** A Python client program of adapters/python/ (its bare references: bare_publish.py and bare_recovery.py --client `client`). */
export function pythonProgram(script: string, client: string): ProgramCommand {
  return () => {
    const folder = path.join(packageRoot(), 'adapters', 'python');
    return {
      command: [pythonInterpreter(), path.join(folder, script)],
      barePublish: [pythonInterpreter(), path.join(folder, 'bare_publish.py'), '--client', client],
      bareRecovery: [pythonInterpreter(), path.join(folder, 'bare_recovery.py'), '--client', client],
    };
  };
}

/** A Go client program, built by scripts/setup-clients.sh into adapters/go/bin/ (or BENCH_GO_CLIENT_DIR). */
export function goProgram(binary: string): ProgramCommand {
  return () => {
    const folder = process.env.BENCH_GO_CLIENT_DIR || path.join(packageRoot(), 'adapters', 'go', 'bin');
    const file = path.join(folder, binary);
    return fs.existsSync(file)
      ? { command: [file], barePublish: [file, '--bare-publish'], bareRecovery: [file, '--bare-recovery'] }
      : { missing: `${file} is not built (${SETUP}, and builds it)` };
  };
}

/** Why `resolve`'s program cannot run here (it cannot describe itself), with how to install what it needs; undefined when it can. */
function missingOf(resolve: ProgramCommand): string | undefined {
  const resolved = resolve();
  if ('missing' in resolved) return resolved.missing;
  try {
    describeProgram(resolved.command);
    return undefined;
  } catch (error) {
    return `${(error as Error).message} (${SETUP})`;
  }
}

/** One client program as a client library: its adapter, and what is missing to run it. */
export function programLibrary<const Name extends string>(name: Name, resolve: ProgramCommand) {
  const adapter = programAdapter(name, resolve);
  return defineClientLibrary({
    packages: [],
    clients: { [name]: () => adapter } as { readonly [N in Name]: () => typeof adapter },
    missing: () => missingOf(resolve),
  });
}
