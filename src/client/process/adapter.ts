/**
 * A client program as a ClientAdapter: everything the harness knows of it comes from the program
 * itself (`--describe`), read on first use; each connection starts the program once. A built-in
 * program (adapters/<language>/, listed in src/client/process/programs.ts) and a user's own
 * executable (`--clients ./my-client`, `check-adapter ./my-client`) are driven alike.
 */
import type { ClientAdapter, ClientInfo, ClientProfile, ConnectOptions, SignalSupport } from '../api';
import type { Description } from '../../schemaTypes/clientProtocol';
import { ProgramConnection } from './connection';
import { commandWords, describeProgram } from './describe';

/** How to start a client program: its command line, or why it cannot run here and how to install what it needs. */
export type ProgramCommand = () => { readonly command: readonly string[] } | { readonly missing: string };

/**
 * The adapter of the program `resolve` names. Nothing runs until the adapter is used: then
 * `--describe` once (a program that cannot describe itself fails with what it printed).
 */
export function programAdapter(name: string, resolve: ProgramCommand): ClientAdapter & { readonly command: readonly string[] } {
  let described: { readonly command: readonly string[]; readonly description: Description } | undefined;
  const load = () => {
    if (described) return described;
    const resolved = resolve();
    if ('missing' in resolved) throw new Error(`client ${name} cannot run here: ${resolved.missing}`);
    described = { command: resolved.command, description: describeProgram(resolved.command) };
    return described;
  };
  const description = () => load().description;
  const settingsOf = (profile: ClientProfile) => ({
    ...description().settings[profile],
    runtime: description().runtime,
    ...(description().location === undefined ? {} : { location: description().location! }),
  });
  return {
    name,
    get command() {
      return load().command;
    },
    get library() {
      return description().library;
    },
    get version() {
      return description().version;
    },
    get profiles() {
      return description().profiles;
    },
    get multipleHosts() {
      return description().multipleHosts;
    },
    get recovery() {
      return description().recovery;
    },
    get signals(): SignalSupport {
      return description().signals;
    },
    get acks() {
      return description().acks;
    },
    settings: settingsOf,
    async connect(profile: ClientProfile, options: ConnectOptions) {
      const { command } = load();
      const info: ClientInfo = {
        name,
        profile,
        library: description().library,
        version: description().version,
        settings: settingsOf(profile),
        multipleHosts: description().multipleHosts,
        recovery: description().recovery,
        signals: description().signals,
      };
      return ProgramConnection.open(command, info, options);
    },
  };
}

/** The adapter of a user's own program (an executable file), named as it describes itself. */
export function userProgramAdapter(file: string): ClientAdapter {
  const description = describeProgram([file]);
  return programAdapter(description.name, () => ({ command: [file] }));
}

export { commandWords };
