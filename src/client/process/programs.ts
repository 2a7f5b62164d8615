/**
 * The client programs built into this repository (adapters/<language>/), by name: how to start
 * each, and what to install where its runtime or library is missing. A user points one at an
 * interpreter or build of their own with BENCH_PYTHON / BENCH_GO_CLIENT_DIR.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config';
import { programAdapter, type ProgramCommand } from './adapter';

const SETUP = 'scripts/setup-clients.sh installs them from Debian';

/** Debian's python3 (where python3-kombu and friends install), unless BENCH_PYTHON names another interpreter. */
export function pythonInterpreter(): string {
  const chosen = process.env.BENCH_PYTHON;
  if (chosen !== undefined && chosen !== '') return chosen;
  return fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/** A Python client program of adapters/python/. */
export function pythonProgram(script: string): ProgramCommand {
  return () => ({ command: [pythonInterpreter(), path.join(PROJECT_ROOT, 'adapters', 'python', script)] });
}

/** The Go client program, built by scripts/setup-clients.sh into adapters/go/bin/ (or BENCH_GO_CLIENT_DIR). */
export function goProgram(binary: string): ProgramCommand {
  return () => {
    const folder = process.env.BENCH_GO_CLIENT_DIR || path.join(PROJECT_ROOT, 'adapters', 'go', 'bin');
    const file = path.join(folder, binary);
    return fs.existsSync(file) ? { command: [file] } : { missing: `${file} is not built (${SETUP}, and builds it)` };
  };
}

/** What to say when a built-in program cannot describe itself. */
export const INSTALL_HINT = SETUP;

export const PROGRAM_ADAPTERS = {
  kombu: programAdapter('kombu', pythonProgram('kombu_client.py')),
  pika: programAdapter('pika', pythonProgram('pika_client.py')),
  'amqp091-go': programAdapter('amqp091-go', goProgram('amqp091-client')),
};
