/**
 * Client factories by mode. To benchmark another library, add a class implementing
 * `ClientUnderTest` (see ./types.ts) and a line here; the workers pick it by `mode`.
 */
import { AmqplibManualClient } from './amqplibManual';
import { AmqplibRecoveryClient } from './amqplibRecovery';
import type { ClientOptions, ClientUnderTest, RecoveryMode } from './types';

export const CLIENT_FACTORIES: Readonly<Record<RecoveryMode, (options: ClientOptions) => ClientUnderTest>> = {
  manual: (options) => new AmqplibManualClient(options),
  'amqplib-recovery': (options) => new AmqplibRecoveryClient(options),
};

export const RECOVERY_MODES = Object.keys(CLIENT_FACTORIES) as RecoveryMode[];

export function createClient(mode: RecoveryMode, options: ClientOptions): ClientUnderTest {
  const factory = CLIENT_FACTORIES[mode];
  if (!factory) throw new Error(`unknown client mode ${JSON.stringify(mode)}; expected one of ${RECOVERY_MODES.join(', ')}`);
  return factory(options);
}

export * from './types';
