/**
 * A client program as a ClientAdapter: everything the harness knows of it comes from the program
 * itself (`--describe`), read on first use; each connection starts the program once. A built-in
 * program (adapters/<language>/, listed in src/client/process/programs.ts) and a user's own
 * executable (`--clients ./my-client`, `check-adapter ./my-client`) are driven alike.
 */
import fs from 'node:fs';
import { ConfigError } from '../../errors';
import type { ClientAdapter, ClientInfo, ClientProfile, ConnectOptions, SignalSupport } from '../api';
import type { Description } from '../../schemaTypes/clientProtocol';
import { ProgramConnection } from './connection';
import { commandWords, describeProgram } from './describe';

/**
 * How to start a client program: its command line (and those of its bare references, the library
 * alone, for the harness-overhead checks: publish, and one connection's recovery), or why it cannot
 * run here and how to install what it needs.
 */
export type ProgramCommand = () =>
  | { readonly command: readonly string[]; readonly barePublish?: readonly string[]; readonly bareRecovery?: readonly string[] }
  | { readonly missing: string };

/**
 * The adapter of the program `resolve` names. Nothing runs until the adapter is used: then
 * `--describe` once (a program that cannot describe itself fails with what it printed).
 */
export function programAdapter(name: string, resolve: ProgramCommand): ProgramAdapter {
  let described:
    | {
        readonly command: readonly string[];
        readonly barePublish?: readonly string[];
        readonly bareRecovery?: readonly string[];
        readonly description: Description;
      }
    | undefined;
  const load = () => {
    if (described) return described;
    const resolved = resolve();
    if ('missing' in resolved) throw new Error(`client ${name} cannot run here: ${resolved.missing}`);
    described = { ...resolved, description: describeProgram(resolved.command) };
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
    get barePublishCommand() {
      return load().barePublish;
    },
    get bareRecoveryCommand() {
      return load().bareRecovery;
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
    get silenceCheck() {
      return description().silenceCheck;
    },
    settings: settingsOf,
    // Its bare script (adapters/<language>/) reads the profile in the same table of settings as the program.
    bareOptions: (profile: ClientProfile) => ({ profile }),
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

/** A client program's adapter: a ClientAdapter, and how its program and its bare publish reference start. */
export interface ProgramAdapter extends ClientAdapter {
  readonly command: readonly string[];
  /** The bare publish reference (scripts/bare-publish.js's command line and records), where the program has one. */
  readonly barePublishCommand: readonly string[] | undefined;
  /** The bare recovery reference: one connection of the library alone (src/recovery/bareProgramConsumers.ts), where the program has one. */
  readonly bareRecoveryCommand: readonly string[] | undefined;
}

/** A file that is a client program rather than a JS/TS adapter module: any file but a .js/.ts one. */
export function isProgramFile(file: string): boolean {
  return !/\.[cm]?[jt]s$/.test(file);
}

/**
 * The adapter of a user's own program (an executable file), named as it describes itself.
 * @throws ConfigError naming `setting`: the file is missing, not executable, or does not describe itself
 */
export function userProgramAdapter(file: string, builtInNames: readonly string[], setting: string): ClientAdapter {
  if (!fs.existsSync(file)) throw new ConfigError(setting, 'a client name, an adapter module or a client program that exists', file);
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new ConfigError(setting, `an executable client program (chmod +x it, with a #! line naming its interpreter)`, file);
  }
  let description: Description;
  try {
    description = describeProgram([file]);
  } catch (error) {
    throw new ConfigError(setting, `a client program that describes itself (${(error as Error).message})`, file);
  }
  if (builtInNames.includes(description.name))
    throw new ConfigError(setting, `a client program with a name of its own ("${description.name}" is a built-in client's)`, file);
  return programAdapter(description.name, () => ({ command: [file] }));
}

export { commandWords };
