import { MAX_PREVIEW_ITEMS, ruleSetJsonSchema } from '@terrarium/rubrics';
import { z } from 'zod';
import { createRouter, labelerProcedure, researcherProcedure, type Principal } from '../trpc';
import { sharedCustomRuleChecker, sharedCustomRuleRunner } from './sandbox-runner';
import { itemBreakdowns } from './item-breakdowns';
import * as service from './rule-set-service';
import { runScoringStatus, startRunScoring } from './score-run-service';

const name = z.string().min(1).max(64);
const version = z.number().int().positive();
const document = z.string().min(1).max(1_000_000);
/** A custom rule's top level, checked as a draft is typed, runs at most this long. */
const VALIDATE_TIME_LIMIT_MS = 1_000;

const HistoryTurn = z.strictObject({ action: z.string(), observation: z.string() });
const PreviewItemInput = z.strictObject({
  prediction: z.string(),
  reference: z.string(),
  history: z.array(HistoryTurn).optional(),
  action: z.string().optional(),
  domain: z.string().optional(),
});

const PreviewSample = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('first'), n: z.number().int().min(1).max(MAX_PREVIEW_ITEMS) }),
  z.strictObject({
    kind: z.literal('random'),
    n: z.number().int().min(1).max(MAX_PREVIEW_ITEMS),
    seed: z.number().int().default(0),
  }),
  z.strictObject({ kind: z.literal('worst'), n: z.number().int().min(1).max(MAX_PREVIEW_ITEMS) }),
  z.strictObject({
    kind: z.literal('chosen'),
    itemIds: z.array(z.string().min(1)).min(1).max(MAX_PREVIEW_ITEMS),
  }),
]);

const PreviewSource = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('run'),
    runId: z.string().min(1),
    sim: z.string().min(1).optional(),
  }),
  z.strictObject({
    kind: z.literal('items'),
    items: z.array(PreviewItemInput).min(1).max(MAX_PREVIEW_ITEMS),
  }),
]);

function authorOf(principal: Principal): string {
  return principal.kind === 'user' ? principal.name : principal.kind;
}

/**
 * Rule sets for the editor: read by anyone logged in (labelers grade against their criteria);
 * saved, diffed and previewed by researchers. Every save is a new version with who and why.
 */
export const rulesetsRouter = createRouter({
  /** The JSON Schema Monaco loads for completion, hover docs and inline errors. */
  schema: labelerProcedure.query(() => ruleSetJsonSchema()),
  list: labelerProcedure.query(({ ctx }) => service.listRuleSets(ctx)),
  versions: labelerProcedure
    .input(z.object({ name }))
    .query(({ ctx, input }) => service.listVersions(ctx, input.name)),
  get: labelerProcedure
    .input(z.object({ name, version: version.optional() }))
    .query(({ ctx, input }) => service.getVersion(ctx, input.name, input.version)),
  /** Server-side check of a draft: the same issues (field, line, column) the save would refuse. */
  validate: researcherProcedure.input(z.object({ document })).query(async ({ input }) => {
    // Asked as the draft is typed: a rule's top level gets at most a second here, so a draft that
    // loops holds a sandbox worker (shared with /v1/reward) briefly; saving checks it in full.
    const check = sharedCustomRuleChecker();
    const parsed = await service.checkDocument(input.document, (rule) =>
      check({ ...rule, timeoutMs: Math.min(rule.timeoutMs, VALIDATE_TIME_LIMIT_MS) }),
    );
    // The name tells the editor where a save goes: a draft renamed starts another rule set.
    return parsed.ok
      ? { ok: true as const, issues: [], name: parsed.ruleSet.name }
      : { ok: false as const, issues: parsed.issues };
  }),
  save: researcherProcedure
    .input(z.object({ document, message: z.string().min(1).max(2000) }))
    .mutation(({ ctx, input }) =>
      service.saveVersion(
        ctx,
        { ...input, author: authorOf(ctx.principal) },
        sharedCustomRuleChecker(),
      ),
    ),
  diff: researcherProcedure
    .input(z.object({ name, from: version, to: version }))
    .query(({ ctx, input }) => service.diffVersions(ctx, input)),
  preview: researcherProcedure
    .input(z.object({ document, source: PreviewSource, sample: PreviewSample }))
    .mutation(({ ctx, input }) =>
      service.previewDraft(
        ctx,
        input,
        { runCustom: sharedCustomRuleRunner() },
        sharedCustomRuleChecker(),
      ),
    ),
  /**
   * Scores every prediction of an ended bench run with a saved version, in the background; the
   * scores land as rule metric `NAME@vN` on the run's leaderboard, charts and cells.
   */
  scoreRun: researcherProcedure
    .input(
      z.object({
        runId: z.string().min(1).max(20),
        ruleSet: z.object({ name, version: version.optional() }),
      }),
    )
    .mutation(({ ctx, input }) => startRunScoring(ctx.store, input)),
  scoreRunStatus: researcherProcedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .query(({ ctx, input }) => runScoringStatus(ctx.store, input.id)),
  /** Why each saved version scored one prediction of a run as it did: the stored breakdowns. */
  itemBreakdowns: researcherProcedure
    .input(
      z.object({
        runId: z.string().min(1).max(20),
        sim: z.string().min(1).max(500),
        itemId: z.string().min(1).max(500),
      }),
    )
    .query(({ ctx, input }) => itemBreakdowns(ctx.store, input)),
});
