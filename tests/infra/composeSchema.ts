/**
 * The Compose Specification's JSON schema (vendored in schemas/vendor/compose-spec.json), as
 * `docker compose config` applies it before anything runs: ajv (draft 2019-09, as the schema
 * declares) plus the four string formats the schema names, checked as compose-go checks them.
 */
import Ajv2019 from 'ajv/dist/2019';
import { describeErrors } from './githubWorkflowSchema';

/** Go's time.Duration syntax, e.g. `5s`, `1m30s`, `250ms`. */
const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
/** `[ip:][published[-range]:]target[-range][/protocol]`, the short syntax of `ports`. */
const PORTS = /^(?:(?:\[[0-9a-fA-F:]+\]|[0-9.]+):)?(?:\d{1,5}(?:-\d{1,5})?:)?\d{1,5}(?:-\d{1,5})?(?:\/(?:tcp|udp|sctp))?$/;
const EXPOSE = /^\d{1,5}(?:-\d{1,5})?(?:\/(?:tcp|udp|sctp))?$/;
const SUBNET = /^(?:(?:\d{1,3}\.){3}\d{1,3}\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/;

/**
 * The schema as ajv takes it: its `$schema` names the 2019-09 meta-schema by an old http://
 * address (Ajv2019 uses that draft anyway), and its subschemas carry draft-04 style `id`
 * labels, which ajv 8 refuses; neither changes what is valid.
 */
function withoutLegacyIds(schema: Record<string, unknown>): Record<string, unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
        .map(([key, value]) => [key, strip(value)]),
    );
  };
  const { $schema: _declared, ...body } = strip(schema) as Record<string, unknown>;
  return body;
}

export interface ComposeValidation {
  readonly valid: boolean;
  readonly errors: readonly string[];
}

/** Compiles the Compose schema once; the returned function validates a parsed compose file. */
export function compileComposeValidator(schema: Record<string, unknown>): (compose: unknown) => ComposeValidation {
  const ajv = new Ajv2019({ allErrors: true, strictTypes: false, allowUnionTypes: true });
  ajv.addFormat('duration', DURATION);
  ajv.addFormat('ports', { type: 'string', validate: (value: string) => PORTS.test(value) });
  ajv.addFormat('expose', { type: 'string', validate: (value: string) => EXPOSE.test(value) });
  ajv.addFormat('subnet_ip_address', SUBNET);
  const validate = ajv.compile(withoutLegacyIds(schema));
  return (compose) => {
    const valid = validate(compose);
    return { valid, errors: valid ? [] : describeErrors(validate.errors ?? []) };
  };
}
