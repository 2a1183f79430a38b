import {
  actionText,
  classifyObservation,
  CONTENT_CLASSES,
  RULE_METRIC_IDS,
  scoreClassified,
  scoreRules,
  type ClassifiedObservation,
  type ContentClassScore,
  type HistoryTurn,
} from '@terrarium/fidelity';
import { rowObservationText } from '@terrarium/formats';
import type { BenchItem, ItemScore, JsonValue, Observation, ScorableItem } from '@terrarium/schema';

/** Metric id of the content-class score among an item's rule scores. */
export const CONTENT_METRIC = 'content';

/** Mismatched spans listed per class in a content score's detail. */
export const MAX_MISMATCHES_SHOWN = 10;

/** Longest span text kept in a detail; longer ones are cut with an ellipsis. */
const MAX_SPAN_TEXT = 160;

/** An item with its real observation classified once, to score any number of predictions. */
export interface ClassifiedItem {
  item: ScorableItem;
  history: HistoryTurn[];
  action: string;
  classified: ClassifiedObservation;
}

/** The history as the scorers see it: actions rendered as text, observations' contents. */
export function itemHistory(item: Pick<BenchItem, 'history'>): HistoryTurn[] {
  return item.history.map((turn) => ({
    action: actionText(turn.action),
    observation: turn.observation.content,
  }));
}

/**
 * An observation as it is compared: without the official `**Environment Observation:**` marker
 * that rows of AgentWorldBench files put in front (the official scorer strips it too).
 */
export function comparableText(content: string): string {
  return rowObservationText(content);
}

export function classifyItem(item: ScorableItem): ClassifiedItem {
  const history = itemHistory(item);
  const action = actionText(item.action);
  return {
    item,
    history,
    action,
    classified: classifyObservation(comparableText(item.real.content), history, action),
  };
}

/**
 * Every rule metric (value null where it does not apply) and the content-class score of one
 * prediction. For several simulators on the same item, classify once with `classifyItem` and call
 * `scoreClassifiedItem` per prediction.
 */
export function scoreItem(item: ScorableItem, sim: string, predicted: Observation): ItemScore[] {
  return scoreClassifiedItem(classifyItem(item), sim, predicted);
}

export function scoreClassifiedItem(
  classifiedItem: ClassifiedItem,
  sim: string,
  predicted: Observation,
): ItemScore[] {
  const { item, history, action, classified } = classifiedItem;
  const prediction = comparableText(predicted.content);
  const rules = scoreRules(prediction, comparableText(item.real.content), {
    kind: item.real.kind,
    history,
    action,
  });
  const scores: ItemScore[] = RULE_METRIC_IDS.map((metric) => ({
    itemId: item.id,
    sim,
    source: 'rule',
    metric,
    value: unitValue(rules[metric]),
    detail: null,
  }));
  const content = scoreClassified(prediction, classified);
  scores.push({
    itemId: item.id,
    sim,
    source: 'rule',
    metric: CONTENT_METRIC,
    value: unitValue(content.score),
    detail: contentDetail(content),
  });
  return scores;
}

function unitValue(value: number | null): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  return Math.min(1, Math.max(0, value));
}

function clip(text: string): string {
  return text.length <= MAX_SPAN_TEXT ? text : `${text.slice(0, MAX_SPAN_TEXT - 1)}…`;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * The compact explanation stored with a content score: per class the score, its weight, how many
 * spans matched out of how many, and the first mismatched spans with the reason.
 */
export function contentDetail(content: ContentClassScore): JsonValue {
  const classes: Record<string, JsonValue> = {};
  for (const cls of CONTENT_CLASSES) {
    const summary = content.byClass[cls];
    if (summary === undefined) continue;
    const verdicts = content.explanation.filter((verdict) => verdict.class === cls);
    const mismatched = verdicts.filter((verdict) => !verdict.matched);
    classes[cls] = {
      score: round(summary.score),
      weight: round(summary.weight),
      matched: verdicts.length - mismatched.length,
      total: verdicts.length,
      mismatched: mismatched.slice(0, MAX_MISMATCHES_SHOWN).map((verdict) => ({
        text: clip(verdict.span.text),
        at: clip(verdict.span.anchor),
        credit: round(verdict.credit),
        why: verdict.why,
      })),
    };
  }
  return { score: round(content.score), contradictions: content.contradictions, classes };
}
