/** Labels for parameter sets and results, shared by tables, charts, the comparison and the terminal. */

type Parameters = Readonly<Record<string, string | number | boolean>>;

/** Compact parameter labels for axes, legends and table headers: `10 threads · 256 B · plain`. */
export function shortParameters(parameters: Parameters, omit: readonly string[] = []): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(parameters)) {
    if (omit.includes(key)) continue;
    if (key === 'threads') parts.push(`${value} threads`);
    else if (key === 'consumers') parts.push(`${value} consumers`);
    else if (key === 'message_size_bytes') parts.push(`${value} B`);
    else if (key === 'messages_per_thread') parts.push(`${value} msgs/thread`);
    else if (key === 'messages') parts.push(`${value} msgs`);
    else if (typeof value === 'string') parts.push(value);
    else parts.push(`${key}=${String(value)}`);
  }
  return parts.join(' · ') || 'default';
}

/** `publish_throughput (10 threads · 256 B · plain)`. */
export function resultLabel(name: string, parameters: Parameters): string {
  return Object.keys(parameters).length === 0 ? name : `${name} (${shortParameters(parameters)})`;
}
