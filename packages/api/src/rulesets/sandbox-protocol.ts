import type { CustomRuleResult } from '@terrarium/rubrics';
import { z } from 'zod';

/** What the pool sends a sandbox worker: one rule on one item (or none: a check), with its limits. */
export const SandboxRequest = z.object({
  id: z.number().int(),
  source: z.string(),
  language: z.enum(['javascript', 'typescript']),
  /** Null: check the rule (it compiles, its top level runs, it defines `score`) without scoring. */
  input: z
    .object({
      prediction: z.string(),
      reference: z.string(),
      history: z.array(z.object({ action: z.string(), observation: z.string() })),
      action: z.string(),
      domain: z.string().nullable(),
      tool: z.string(),
    })
    .nullable(),
  limits: z.object({
    timeoutMs: z.number().int().positive(),
    memoryMb: z.number().int().positive(),
  }),
});
export type SandboxRequest = z.infer<typeof SandboxRequest>;

/** `fault`: the rule's own (it failed, timed out, defines no score) or the sandbox's. */
export type SandboxReply =
  | { id: number; ok: true; result: CustomRuleResult }
  | { id: number; ok: false; message: string; fault: 'rule' | 'sandbox' };

export const SandboxReply = z.union([
  z.object({
    id: z.number().int(),
    ok: z.literal(true),
    result: z.object({ score: z.number().nullable(), detail: z.string().optional() }),
  }),
  z.object({
    id: z.number().int(),
    ok: z.literal(false),
    message: z.string(),
    fault: z.enum(['rule', 'sandbox']),
  }),
]);
