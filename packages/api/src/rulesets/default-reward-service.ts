import type { Store } from '@terrarium/db';
import { endpointAllowlistFromEnv } from '../simulate/sim-spec';
import { sharedCustomRuleChecker, sharedCustomRuleRunner } from './sandbox-runner';
import {
  createRewardService,
  DEFAULT_REWARD_TIME_LIMIT_MS,
  type RewardService,
} from './reward-service';

/**
 * The reward service a server starts with. Read here, once: `TERRARIUM_REWARD_JUDGE`
 * (`openai:URL#MODEL`, scores rubric criteria) and `TERRARIUM_REWARD_TIME_LIMIT_MS`.
 */
export function createDefaultRewardService(
  store: Store,
  env: NodeJS.ProcessEnv = process.env,
): RewardService {
  const judgeSpec = env['TERRARIUM_REWARD_JUDGE'];
  const limit = Number(env['TERRARIUM_REWARD_TIME_LIMIT_MS']);
  return createRewardService({
    store,
    ...(judgeSpec === undefined || judgeSpec === '' ? {} : { judgeSpec }),
    allowlist: endpointAllowlistFromEnv(env),
    runCustom: sharedCustomRuleRunner(),
    checkCustom: sharedCustomRuleChecker(),
    timeLimitMs: Number.isFinite(limit) && limit > 0 ? limit : DEFAULT_REWARD_TIME_LIMIT_MS,
  });
}
