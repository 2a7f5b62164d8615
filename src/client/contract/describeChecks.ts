/**
 * What an adapter says of itself, read without connecting: what results record of the client
 * (library, version, settings) and, for every typed signal, how its library gives it.
 */
import { SIGNAL_KINDS } from '../api';
import { ContractViolation, type ContractCheck } from './types';

/** A signal the adapter says its library does not give: `none: ...` and what it does instead. */
export function saysNone(words: string): boolean {
  return /^none\b/i.test(words.trim());
}

export const infoCheck: ContractCheck = {
  name: 'info',
  group: 'describe',
  boundMs: 5000,
  async run({ info, spec }) {
    if (!/^\d+\.\d+\.\d+/.test(info.version))
      throw new ContractViolation(
        `the version of "${info.library}" reads "${info.version}": install it where the adapter module can require it, or give the adapter a \`version\` (results record it)`,
      );
    const settings = Object.keys(info.settings);
    if (settings.length === 0)
      throw new ContractViolation(
        `settings('${spec.profile}') is empty: give the library's effective settings in its own option names (results record them)`,
      );
    return `${info.library} ${info.version}, recovery by the ${info.recovery}, ${settings.length} settings (${settings.slice(0, 4).join(', ')}${settings.length > 4 ? ', ...' : ''}), ${info.multipleHosts ? 'every URL of a list' : 'the first URL only'}`;
  },
};

export const signalsDescribedCheck: ContractCheck = {
  name: 'signals',
  group: 'describe',
  boundMs: 5000,
  async run({ info }) {
    const empty = SIGNAL_KINDS.filter((kind) => typeof info.signals[kind] !== 'string' || info.signals[kind].trim() === '');
    if (empty.length > 0)
      throw new ContractViolation(
        `\`signals\` says nothing of ${empty.join(', ')}: say how the library gives each, or "none: ..." and what it does instead`,
      );
    const given = SIGNAL_KINDS.filter((kind) => !saysNone(info.signals[kind]));
    const none = SIGNAL_KINDS.filter((kind) => saysNone(info.signals[kind]));
    return `given by the library: ${given.join(', ') || 'none'}${none.length > 0 ? `; none: ${none.join(', ')}` : ''}`;
  },
};
