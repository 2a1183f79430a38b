import { TRPCError } from '@trpc/server';
import { LabelCriterion, QueueSelection } from '@terrarium/labels';
import { z } from 'zod';
import { createRouter, labelerProcedure, researcherProcedure } from '../trpc';
import { labelActor } from './label-actor';
import { judgeFlips, judgeVersions, queueAgreement } from './agreement-service';
import { rejudgeStatus, startRejudge } from './rejudge-service';
import * as service from './label-service';

const queueId = z.string().regex(/^[1-9][0-9]{0,17}$/, 'a queue id');
const ordinal = z.number().int().nonnegative();
const scores = z.record(z.string().min(1).max(100), z.number().nullable());
const comment = z.string().max(10_000).default('');
const leaseRef = z.object({ queueId, ordinal });

/**
 * Label queues: researchers build them from bench runs, adjudicate and export; labelers lease,
 * grade, skip and edit their own labels. Who may see what is decided in label-service.ts.
 */
export const labelsRouter = createRouter({
  createQueue: researcherProcedure
    .input(
      z.object({
        name: z.string().min(1).max(200),
        runId: z.string().min(1),
        sim: z.string().min(1).optional(),
        selection: QueueSelection.default({ kind: 'all' }),
        labelsPerItem: z.number().int().min(1).max(50).default(1),
        blind: z.boolean().default(true),
        criteria: z.array(LabelCriterion).min(1).max(50).optional(),
        ruleSet: z
          .object({ name: z.string().min(1), version: z.number().int().positive().optional() })
          .optional(),
        leaseSeconds: z.number().int().min(5).max(3600).default(300),
        /** User names the queue is for; without it every labeler may work it. */
        labelers: z.array(z.string().min(1).max(64)).min(1).max(500).optional(),
      }),
    )
    .mutation(({ ctx, input }) => service.createQueue(ctx.store, ctx.principal, input)),

  deleteQueue: researcherProcedure
    .input(z.object({ queueId }))
    .mutation(({ ctx, input }) => service.deleteQueue(ctx.store, input.queueId)),

  queues: labelerProcedure.query(async ({ ctx }) =>
    (await service.workableQueues(ctx.store, ctx.principal)).map((queue) =>
      service.queueView(ctx.principal, queue),
    ),
  ),

  queue: labelerProcedure
    .input(z.object({ queueId }))
    .query(async ({ ctx, input }) =>
      service.queueView(
        ctx.principal,
        await service.requireWorkableQueue(ctx.store, ctx.principal, input.queueId),
      ),
    ),

  /** Where every item stands: label counts and who holds a lease until when. */
  items: researcherProcedure
    .input(z.object({ queueId }))
    .query(({ ctx, input }) => ctx.store.labelQueueItems(input.queueId)),

  /** Leases the caller's next item (or returns the one they hold); null when nothing is left. */
  next: labelerProcedure
    .input(z.object({ queueId }))
    .mutation(({ ctx, input }) => service.nextItem(ctx.store, ctx.principal, input.queueId)),

  /** An item the caller labeled already, with their label, to review or edit it. */
  labeledItem: labelerProcedure
    .input(leaseRef)
    .query(({ ctx, input }) =>
      service.labeledItem(ctx.store, ctx.principal, input.queueId, input.ordinal),
    ),

  /** Sent while the labeler works; `lost` when the lease expired and someone else took the item. */
  heartbeat: labelerProcedure.input(leaseRef).mutation(async ({ ctx, input }) => {
    const lease = await ctx.store.renewLease(
      input.queueId,
      input.ordinal,
      labelActor(ctx.principal).id,
    );
    return lease === null
      ? { lost: true as const }
      : { lost: false as const, expiresAt: lease.expiresAt };
  }),

  release: labelerProcedure.input(leaseRef).mutation(async ({ ctx, input }) => ({
    released: await ctx.store.releaseLease(
      input.queueId,
      input.ordinal,
      labelActor(ctx.principal).id,
    ),
  })),

  skip: labelerProcedure.input(leaseRef).mutation(async ({ ctx, input }) => ({
    skipped: await ctx.store.skipItem(input.queueId, input.ordinal, labelActor(ctx.principal).id),
  })),

  /** How many items of the queue the caller skipped (offered again after `takeBackSkips`). */
  skips: labelerProcedure.input(z.object({ queueId })).query(async ({ ctx, input }) => {
    const queue = await service.requireWorkableQueue(ctx.store, ctx.principal, input.queueId);
    return { skipped: await ctx.store.countSkips(queue.id, labelActor(ctx.principal).id) };
  }),

  /** The caller's skipped items, offered again: a skip is not a verdict, and may block a queue. */
  takeBackSkips: labelerProcedure.input(z.object({ queueId })).mutation(async ({ ctx, input }) => {
    const queue = await service.requireWorkableQueue(ctx.store, ctx.principal, input.queueId);
    return { returned: await ctx.store.takeBackSkips(queue.id, labelActor(ctx.principal).id) };
  }),

  submit: labelerProcedure
    .input(leaseRef.extend({ scores, comment, flagged: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => service.submit(ctx.store, ctx.principal, input)),

  /**
   * Changes the caller's own label in the queue: the criteria named in `scores` are set (null
   * clears one), the others kept; `comment` and `flagged` change only when sent. The answer is the
   * whole label as stored.
   */
  edit: labelerProcedure
    .input(
      z.object({
        queueId,
        labelId: z.string().min(1),
        scores,
        comment: z.string().max(10_000).optional(),
        flagged: z.boolean().optional(),
      }),
    )
    .mutation(({ ctx, input }) => service.editOwnLabel(ctx.store, ctx.principal, input)),

  /** A labeler's own labels; a researcher's view of all of them. */
  labels: labelerProcedure
    .input(z.object({ queueId }))
    .query(({ ctx, input }) => service.visibleLabels(ctx.store, ctx.principal, input.queueId)),

  /** Who changed a label, when, to what. */
  history: researcherProcedure
    .input(z.object({ labelId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.store.labelHistory(input.labelId)),

  disagreements: researcherProcedure
    .input(z.object({ queueId, minSpread: z.number().min(0).default(1) }))
    .query(({ ctx, input }) => service.disagreements(ctx.store, input.queueId, input.minSpread)),

  adjudicate: researcherProcedure
    .input(
      z.object({
        queueId,
        ordinal,
        criterion: z.string().min(1),
        value: z.number().int().nullable(),
        comment,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const queue = await service.requireQueue(ctx.store, input.queueId);
      const problem = service.adjudicationProblem(queue, input.criterion, input.value);
      if (problem !== null) throw new TRPCError({ code: 'BAD_REQUEST', message: problem });
      return ctx.store.adjudicate(
        queue.id,
        input.ordinal,
        input.criterion,
        input.value,
        input.comment,
        labelActor(ctx.principal),
      );
    }),

  adjudications: researcherProcedure
    .input(z.object({ queueId }))
    .query(({ ctx, input }) => ctx.store.listAdjudications(input.queueId)),

  /**
   * Agreement between labelers (α, κ), per criterion and domain, and of their consensus with the
   * judge and the rules, all with bootstrap intervals. `judgeVersion` picks re-judged scores.
   */
  agreement: researcherProcedure
    .input(z.object({ queueId, judgeVersion: z.string().min(1).max(200).nullable().default(null) }))
    .query(({ ctx, input }) =>
      queueAgreement(ctx.store, input.queueId, { judgeVersion: input.judgeVersion }),
    ),

  judgeVersions: researcherProcedure
    .input(z.object({ queueId }))
    .query(({ ctx, input }) => judgeVersions(ctx.store, input.queueId)),

  /** Items whose judge point moved between two judge versions, with the humans' consensus. */
  flips: researcherProcedure
    .input(
      z.object({
        queueId,
        before: z.string().min(1).nullable(),
        after: z.string().min(1).nullable(),
      }),
    )
    .query(({ ctx, input }) => judgeFlips(ctx.store, input.queueId, input.before, input.after)),

  /**
   * Re-judges the queue's items with a rule-set version's criteria, in the background; the scores
   * land as judge version `NAME@vN` for `agreement`, `flips` and `judgeVersions`.
   */
  rejudge: researcherProcedure
    .input(
      z.object({
        queueId,
        judge: z.string().min(1).max(2000),
        ruleSet: z.object({
          name: z.string().min(1).max(64),
          version: z.number().int().positive().optional(),
        }),
      }),
    )
    .mutation(({ ctx, input }) => startRejudge(ctx.store, input)),

  rejudgeStatus: researcherProcedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .query(({ ctx, input }) => rejudgeStatus(ctx.store, input.id)),

  /** Every label as JSONL (one line per item, labeler and criterion). */
  exportJsonl: researcherProcedure.input(z.object({ queueId })).query(async ({ ctx, input }) => ({
    text: await service.exportJsonl(ctx.store, input.queueId),
  })),

  importJsonl: researcherProcedure
    .input(z.object({ queueId, text: z.string().max(20_000_000) }))
    .mutation(({ ctx, input }) => service.importJsonl(ctx.store, input.queueId, input.text)),
});
