import { TRPCError } from '@trpc/server';
import type { Store } from '@terrarium/db';
import { createRejudgeJobs, perKey, type RejudgeProgress } from '@terrarium/jobs';
import { rejudgedCriteria } from '@terrarium/labels';
import { rewardItemOf } from '@terrarium/rubrics';
import { createEndpointPool, withPoolCircuitBreaker } from '@terrarium/worlds';
import { serverTransport } from '../simulate/server-transport';
import { getVersion } from '../rulesets/rule-set-service';
import { priceOf, pricingFromEnv } from '../bench/pricing';
import {
  API_KEY_HINT,
  endpointAllowlistFromEnv,
  endpointApiKey,
  parseSimSpec,
} from '../simulate/sim-spec';
import { requireQueue } from './label-service';

// Judge answers are one small JSON object; a thinking judge needs room before it.
const JUDGE_MAX_TOKENS = 4096;
const JUDGE_CONCURRENCY = 4;

// One registry per store: a server has one store, and tests each open their own.
const jobsOf = perKey(createRejudgeJobs);

export interface RejudgeInput {
  queueId: string;
  /** `openai:URL#MODEL`, reached only when its host is allowed (TERRARIUM_ENDPOINT_ALLOWLIST). */
  judge: string;
  ruleSet: { name: string; version?: number | undefined };
}

/** Starts judging the queue's items with a rule-set version's criteria; poll `rejudgeStatus`. */
export async function startRejudge(store: Store, input: RejudgeInput): Promise<RejudgeProgress> {
  const queue = await requireQueue(store, input.queueId);
  const spec = parseSimSpec(input.judge, 'judge');
  if (spec.kind !== 'openai') {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'judge: an openai:URL#MODEL endpoint' });
  }
  const version = await getVersion({ store }, input.ruleSet.name, input.ruleSet.version);
  // The same choice the page's re-judge form names the unscored criteria by.
  const criteria = rejudgedCriteria(queue.criteria, version.ruleSet.criteria);
  if (criteria.length === 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `ruleSet: ${input.ruleSet.name} shares no judge criterion with the queue (${queue.criteria.map((criterion) => criterion.id).join(', ')})`,
    });
  }
  const price = priceOf(pricingFromEnv(), input.judge);
  let pool;
  try {
    // The server's node:http transport, and fail fast when the judge is unreachable.
    pool = withPoolCircuitBreaker(
      createEndpointPool(
        [
          {
            baseUrl: spec.baseUrl,
            model: spec.model,
            maxConcurrency: JUDGE_CONCURRENCY,
            ...endpointApiKey(spec.baseUrl),
            ...(price === undefined ? {} : { pricing: price }),
          },
        ],
        {
          transport: serverTransport(),
          allowlist: endpointAllowlistFromEnv(),
          apiKeyHint: API_KEY_HINT,
        },
      ),
    );
  } catch (error) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `judge: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return jobsOf(store).start({
    queueId: queue.id,
    ruleSet: { name: version.name, version: version.version ?? 0, criteria },
    judge: async (messages) => {
      const result = await pool.complete({
        messages,
        temperature: 0,
        maxTokens: JUDGE_MAX_TOKENS,
        stream: false,
      });
      return {
        content: result.content,
        usage: {
          inputTokens: result.usage?.inputTokens ?? 0,
          outputTokens: result.usage?.outputTokens ?? 0,
          costUsd: result.costUsd,
        },
      };
    },
    rewardItem: rewardItemOf,
    concurrency: JUDGE_CONCURRENCY,
  });
}

export function rejudgeStatus(store: Store, id: string): RejudgeProgress {
  const progress = jobsOf(store).get(id);
  if (progress === null)
    throw new TRPCError({ code: 'NOT_FOUND', message: `no re-judge job ${id}` });
  return progress;
}

/** For tests and scripts: the job's last progress once it has ended. */
export function rejudgeSettled(store: Store, id: string): Promise<RejudgeProgress | null> {
  return jobsOf(store).settled(id);
}
