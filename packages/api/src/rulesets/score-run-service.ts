import { TRPCError } from '@trpc/server';
import type { Store } from '@terrarium/db';
import { createRuleSetScoringJobs, perKey, type RuleSetScoringProgress } from '@terrarium/jobs';
import { compileRuleSet } from '@terrarium/rubrics';
import { getVersion } from './rule-set-service';
import { sharedCustomRuleRunner } from './sandbox-runner';

// One registry per store: a server has one store, and tests each open their own.
const jobsOf = perKey(createRuleSetScoringJobs);

/**
 * Starts scoring every prediction of a run with a saved rule-set version (the latest unless one
 * is named); poll `scoreRunStatus`. A built-in default is refused until it is saved: scores must
 * name a version that cannot change under them.
 */
export async function startRunScoring(
  store: Store,
  input: { runId: string; ruleSet: { name: string; version?: number | undefined } },
): Promise<RuleSetScoringProgress> {
  const run = await store.getBenchRun(input.runId);
  if (run === null)
    throw new TRPCError({ code: 'NOT_FOUND', message: `no bench run ${input.runId}` });
  if (run.status === 'queued' || run.status === 'running') {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `runId: bench run ${run.id} is still ${run.status}; score it once it has ended`,
    });
  }
  const found = await getVersion({ store }, input.ruleSet.name, input.ruleSet.version);
  if (found.version === null) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `ruleSet: ${found.name} is a built-in default; save it as a version to score a run with it`,
    });
  }
  return jobsOf(store).start({
    runId: run.id,
    ruleSet: { name: found.name, version: found.version, compiled: compileRuleSet(found.ruleSet) },
    evaluate: { runCustom: sharedCustomRuleRunner() },
  });
}

export function runScoringStatus(store: Store, id: string): RuleSetScoringProgress {
  const progress = jobsOf(store).get(id);
  if (progress === null)
    throw new TRPCError({ code: 'NOT_FOUND', message: `no rule-set scoring job ${id}` });
  return progress;
}

/** For tests and scripts: the job's last progress once it has ended. */
export function runScoringSettled(
  store: Store,
  id: string,
): Promise<RuleSetScoringProgress | null> {
  return jobsOf(store).settled(id);
}
