import { actionText } from '@terrarium/fidelity';
import type { BenchItem } from '@terrarium/schema';
import type { RewardItem } from './evaluate';

/** What a rule set (and a judge applying its criteria) reads of a bench item and a prediction. */
export function rewardItemOf(item: BenchItem, prediction: string): RewardItem {
  return {
    prediction,
    reference: item.real.content,
    history: item.history.map((turn) => ({
      action: actionText(turn.action),
      observation: turn.observation.content,
    })),
    action: actionText(item.action),
    domain: item.domain,
    kind: item.real.kind,
  };
}
