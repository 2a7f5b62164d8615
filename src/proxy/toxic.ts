/** A toxic as the API knows it: name, type, stream, toxicity and attributes. */
import type { AnyToxicDefinition } from './toxics/registry';
import type { IntegerAttributes, StreamDirection } from './toxics/types';

/** The toxic object of the API, field for field as Toxiproxy serializes it. */
export interface ToxicJson {
  readonly name: string;
  readonly type: string;
  readonly stream: string;
  readonly toxicity: number;
  readonly attributes: IntegerAttributes;
}

export class Toxic {
  constructor(
    readonly name: string,
    readonly definition: AnyToxicDefinition,
    /** The stream exactly as given (Toxiproxy echoes it; matching is case-insensitive). */
    readonly stream: string,
    readonly direction: StreamDirection,
    /** Probability, per connection and direction, that the toxic applies. */
    public toxicity: number,
    public attributes: IntegerAttributes,
  ) {}

  get type(): string {
    return this.definition.type;
  }

  toJSON(): ToxicJson {
    // The embedded proxy's own attributes show only when set: otherwise the JSON is Toxiproxy's.
    const extensions = new Set<string>(this.definition.extensionAttributes ?? []);
    const attributes = Object.fromEntries(Object.entries(this.attributes).filter(([name, value]) => !extensions.has(name) || value !== 0));
    return { name: this.name, type: this.type, stream: this.stream, toxicity: this.toxicity, attributes };
  }
}
