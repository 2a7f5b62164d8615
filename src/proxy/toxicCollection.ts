/**
 * The toxics of one proxy, one chain per direction in insertion order (Toxiproxy's
 * `toxic_collection.go`). Every change reaches the open connections at once: an added toxic
 * applies to them, an updated one changes there, a removed one flushes what it holds.
 */
import { apiErrors } from './apiErrors';
import type { ProxyConnection } from './connection';
import { Toxic } from './toxic';
import { findToxicDefinition } from './toxics/registry';
import type { IntegerAttributes, StreamDirection } from './toxics/types';

/** A toxic creation request after the envelope is decoded (attributes still raw JSON). */
export interface ToxicCreateInput {
  readonly name: string;
  readonly type: string;
  readonly stream: string;
  readonly toxicity: number;
  readonly rawAttributes: unknown;
}

/** A toxic update request: attributes merged onto the current ones, toxicity when given. */
export interface ToxicUpdateInput {
  readonly rawAttributes: unknown;
  readonly toxicity: number | undefined;
}

/** Decodes attributes for a toxic type onto a base (Go's json.Decode onto a struct). */
export type AttributeDecoder = (definition: Toxic['definition'], raw: unknown, base: IntegerAttributes) => IntegerAttributes;

/** Toxiproxy's `stream.ParseDirection`: case-insensitive. */
export function parseDirection(stream: string): StreamDirection | undefined {
  const lowered = stream.toLowerCase();
  return lowered === 'upstream' || lowered === 'downstream' ? lowered : undefined;
}

export class ToxicCollection {
  private readonly chains: Record<StreamDirection, Toxic[]> = { upstream: [], downstream: [] };

  constructor(
    private readonly connections: () => Iterable<ProxyConnection>,
    private readonly decodeAttributes: AttributeDecoder,
  ) {}

  /** Upstream toxics first, then downstream, each in insertion order (as Toxiproxy lists them). */
  list(): Toxic[] {
    return [...this.chains.upstream, ...this.chains.downstream];
  }

  chain(direction: StreamDirection): readonly Toxic[] {
    return this.chains[direction];
  }

  find(name: string): Toxic | undefined {
    return this.chains.upstream.find((toxic) => toxic.name === name) ?? this.chains.downstream.find((toxic) => toxic.name === name);
  }

  /** Checks in Toxiproxy's order: stream, type, duplicate name, attributes. @throws ProxyError with the API status */
  add(input: ToxicCreateInput): Toxic {
    const direction = parseDirection(input.stream);
    if (direction === undefined) throw apiErrors.invalidStream();
    const name = input.name === '' ? `${input.type}_${input.stream}` : input.name;
    const definition = findToxicDefinition(input.type);
    if (definition === undefined) throw apiErrors.invalidToxicType();
    if (this.find(name)) throw apiErrors.toxicAlreadyExists();
    const attributes = this.decodeAttributes(definition, input.rawAttributes, {});
    const problem = definition.validate?.(attributes);
    if (problem !== undefined) throw apiErrors.badRequestBody(problem);
    const toxic = new Toxic(name, definition, input.stream, direction, input.toxicity, attributes);
    this.chains[direction].push(toxic);
    for (const connection of this.connections()) connection.attach(toxic);
    return toxic;
  }

  /** @throws ProxyError 404 when no toxic has that name, 400 on bad attributes */
  update(name: string, decode: () => ToxicUpdateInput): Toxic {
    const toxic = this.find(name);
    if (toxic === undefined) throw apiErrors.toxicNotFound();
    const input = decode(); // after the lookup: Toxiproxy answers 404 before reading the body
    const attributes = this.decodeAttributes(toxic.definition, input.rawAttributes, toxic.attributes);
    const problem = toxic.definition.validate?.(attributes);
    if (problem !== undefined) throw apiErrors.badRequestBody(problem);
    const toxicityChanged = input.toxicity !== undefined && input.toxicity !== toxic.toxicity;
    toxic.attributes = attributes;
    if (input.toxicity !== undefined) toxic.toxicity = input.toxicity;
    for (const connection of this.connections()) connection.update(toxic, toxicityChanged);
    return toxic;
  }

  /** @throws ProxyError 404 when no toxic has that name */
  remove(name: string): void {
    const toxic = this.find(name);
    if (toxic === undefined) throw apiErrors.toxicNotFound();
    const chain = this.chains[toxic.direction];
    chain.splice(chain.indexOf(toxic), 1);
    for (const connection of this.connections()) connection.detach(toxic);
  }

  /** Removes every toxic (upstream first, each in insertion order), as `/reset` does. */
  removeAll(): void {
    for (const toxic of this.list()) this.remove(toxic.name);
  }
}
