/// <reference types="node" />
// Regenerates rule-set.schema.json from the zod schema: `pnpm --filter @terrarium/rubrics schema`.
import { writeFileSync } from 'node:fs';
import { ruleSetJsonSchema } from '../src/json-schema';

const target = new URL('../rule-set.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(ruleSetJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
