/**
 * The file formats' types are generated from their schemas (src/schemaTypes/), which say
 * nothing of mutability; the modules that own each format make them read-only all the way down,
 * as results, archives and histories are data once written.
 */
export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
