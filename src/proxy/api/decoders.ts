/** The request bodies of each endpoint, decoded with Toxiproxy's defaults. */
import type { NamedProxySettings } from '../collection';
import type { ProxySettings } from '../proxy';
import type { ToxicCreateInput, ToxicUpdateInput } from '../toxicCollection';
import type { AnyToxicDefinition } from '../toxics/registry';
import type { IntegerAttributes } from '../toxics/types';
import { asSlice, asStruct, decodeBool, decodeFloat, decodeInteger, decodeString, fieldValue, type JsonObject } from './goJson';

/** Body of `POST /proxies`: enabled defaults to true, missing strings are empty (checked by the caller). */
export function decodeProxyCreate(body: unknown): NamedProxySettings {
  return decodeProxyFields(asStruct(body, 'toxiproxy.Proxy'), { name: '', listen: '', upstream: '', enabled: true });
}

/** Body of `POST/PATCH /proxies/{p}`: omitted fields keep the current values; the name cannot change. */
export function decodeProxyUpdate(body: unknown, current: ProxySettings): ProxySettings {
  const defaults = { name: '', listen: current.listen, upstream: current.upstream, enabled: current.enabled };
  const { listen, upstream, enabled } = decodeProxyFields(asStruct(body, 'toxiproxy.Proxy'), defaults);
  return { listen, upstream, enabled };
}

/** Go's name of the element type `/populate` decodes into (a Proxy with a nullable enabled), as its errors print it. */
const POPULATE_ITEM_GO_TYPE = 'struct { toxiproxy.Proxy; Enabled *bool "json:\\"enabled\\"" }';

/** Body of `POST /populate`: an array of proxies (null is an empty one). */
export function decodePopulate(body: unknown): NamedProxySettings[] {
  const items = asSlice(body, `[]${POPULATE_ITEM_GO_TYPE}`) ?? [];
  return items.map((item) =>
    decodeProxyFields(asStruct(item, POPULATE_ITEM_GO_TYPE), { name: '', listen: '', upstream: '', enabled: true }),
  );
}

function decodeProxyFields(struct: JsonObject | undefined, defaults: NamedProxySettings): NamedProxySettings {
  return {
    name: decodeString(struct, 'name', 'Proxy.name') ?? defaults.name,
    listen: decodeString(struct, 'listen', 'Proxy.listen') ?? defaults.listen,
    upstream: decodeString(struct, 'upstream', 'Proxy.upstream') ?? defaults.upstream,
    enabled: decodeBool(struct, 'enabled', 'Proxy.enabled') ?? defaults.enabled,
  };
}

/** Body of `POST /proxies/{p}/toxics`: stream downstream, toxicity 1.0, attributes decoded later (by type). */
export function decodeToxicCreate(body: unknown): ToxicCreateInput {
  const struct = asStruct(body, 'toxics.ToxicWrapper');
  const rawAttributes = fieldValue(struct, 'attributes');
  // Go first decodes the attributes into a NoopToxic: anything but an object fails there.
  asStruct(rawAttributes, 'toxics.NoopToxic', 'ToxicWrapper.attributes');
  return {
    name: decodeString(struct, 'name', 'ToxicWrapper.name') ?? '',
    type: decodeString(struct, 'type', 'ToxicWrapper.type') ?? '',
    stream: decodeString(struct, 'stream', 'ToxicWrapper.stream') ?? 'downstream',
    toxicity: decodeFloat(struct, 'toxicity', 'ToxicWrapper.toxicity', 'float32') ?? 1,
    rawAttributes,
  };
}

/** Body of `POST/PATCH /proxies/{p}/toxics/{t}`: only attributes and toxicity count. */
export function decodeToxicUpdate(body: unknown): ToxicUpdateInput {
  const struct = asStruct(body, 'struct { Attributes interface {}; Toxicity float32 }');
  return { rawAttributes: fieldValue(struct, 'attributes'), toxicity: decodeFloat(struct, 'toxicity', '.toxicity', 'float32') };
}

/** Attributes of a known toxic type decoded onto `base` (absent ones keep their value, Go's zero at first). */
export function decodeAttributes(definition: AnyToxicDefinition, raw: unknown, base: IntegerAttributes): IntegerAttributes {
  const struct = asStruct(raw, `toxics.${definition.goStructName}`, '.attributes');
  const result: Record<string, number> = {};
  for (const [name, goType] of Object.entries(definition.attributes)) {
    result[name] = decodeInteger(struct, name, `${definition.goStructName}.${name}`, goType) ?? base[name] ?? 0;
  }
  return result;
}
