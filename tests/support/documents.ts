/**
 * Edits of parsed YAML/JSON documents for tests that must show a schema check can fail: a path
 * of keys (a number picks the n-th value of an object, so `jobs[0]` works without its name).
 */
type Node = Record<string, unknown>;

/** Sets (or, with `undefined`, deletes) the value at `path` in a deep copy of `document`. */
export function editedCopy<T>(document: T, path: readonly (string | number)[], value: unknown): T {
  const copy = structuredClone(document) as unknown as Node;
  let node: Node = copy;
  for (const key of path.slice(0, -1)) node = child(node, key);
  const last = path[path.length - 1]!;
  const name = typeof last === 'number' ? Object.keys(node)[last]! : last;
  if (value === undefined) delete node[name];
  else node[name] = value;
  return copy as unknown as T;
}

function child(node: Node, key: string | number): Node {
  const next = typeof key === 'number' ? Object.values(node)[key] : node[key];
  if (typeof next !== 'object' || next === null) throw new Error(`no object at ${String(key)}`);
  return next as Node;
}
