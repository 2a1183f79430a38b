/** A property the rule-set schema knows, with what its description says. */
export interface SchemaHint {
  name: string;
  description: string;
  /** Allowed values when the schema lists them (`enum` or `const`). */
  values: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valuesOf(node: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (Array.isArray(node['enum'])) for (const value of node['enum']) out.push(String(value));
  if (node['const'] !== undefined) out.push(String(node['const']));
  for (const key of ['anyOf', 'oneOf']) {
    const options = node[key];
    if (Array.isArray(options))
      for (const option of options) if (isRecord(option)) out.push(...valuesOf(option));
  }
  return out;
}

/**
 * Every property name anywhere in a JSON Schema with its description and allowed values: the
 * YAML mode's completion and hover (JSON mode gets Monaco's own schema support). A name defined
 * in several places keeps every distinct description.
 */
export function schemaHints(schema: unknown): SchemaHint[] {
  const hints = new Map<string, { descriptions: Set<string>; values: Set<string> }>();
  const seen = new Set<unknown>();
  function walk(node: unknown): void {
    if (seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const entry of node) walk(entry);
      return;
    }
    if (!isRecord(node)) return;
    const properties = node['properties'];
    if (isRecord(properties)) {
      for (const [name, property] of Object.entries(properties)) {
        const entry = hints.get(name) ?? {
          descriptions: new Set<string>(),
          values: new Set<string>(),
        };
        if (isRecord(property)) {
          if (typeof property['description'] === 'string')
            entry.descriptions.add(property['description']);
          for (const value of valuesOf(property)) entry.values.add(value);
        }
        hints.set(name, entry);
      }
    }
    for (const value of Object.values(node)) walk(value);
  }
  walk(schema);
  return [...hints.entries()]
    .map(([name, entry]) => ({
      name,
      description: [...entry.descriptions].join('\n\n'),
      values: [...entry.values],
    }))
    .toSorted((a, b) => a.name.localeCompare(b.name));
}

/** Whether a rule-set document is JSON (else it is read as YAML). */
export function documentLanguage(text: string): 'json' | 'yaml' {
  return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
}
