import { ruleSetJsonSchema } from '@terrarium/rubrics';
import { describe, expect, it } from 'vitest';
import { documentLanguage, schemaHints } from './schema-hints';

// The schema the editor loads (what `rulesets.schema` serves).
const SCHEMA: unknown = ruleSetJsonSchema();

describe('schemaHints on the published rule-set schema', () => {
  const hints = schemaHints(SCHEMA);
  const byName = new Map(hints.map((hint) => [hint.name, hint]));

  it('lists the document fields with their descriptions and allowed values', () => {
    expect(byName.get('criteria')).toBeDefined();
    expect(byName.get('combine')?.description).toContain('Hybrid score');
    expect(byName.get('category')?.values.toSorted()).toEqual([
      'essential',
      'important',
      'optional',
      'pitfall',
    ]);
    expect(byName.get('type')?.values).toEqual(expect.arrayContaining(['metric', 'pattern']));
  });

  it('tells JSON from YAML documents', () => {
    expect(documentLanguage('  {"name": "x"}')).toBe('json');
    expect(documentLanguage('name: x\nrules: []')).toBe('yaml');
  });
});
