import { z } from 'zod';
import { RuleSet } from './rule-set';

/** Where the editor and users find the schema (the checked-in file beside package.json). */
export const RULE_SET_SCHEMA_ID = 'https://terrarium.local/schemas/rule-set.schema.json';

/** The JSON Schema of a rule set document as users write it (defaults optional). */
export function ruleSetJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(RuleSet, { io: 'input', target: 'draft-2020-12' }),
    $id: RULE_SET_SCHEMA_ID,
    title: 'Terrarium rule set',
  };
}
