import type { CriterionPoints, RewardItem } from './evaluate';
import type { Criterion } from './rule-set';

export interface JudgeMessage {
  role: 'system' | 'user';
  content: string;
}

/** Characters of history shown to the judge; older turns are cut first (the recent ones matter). */
const MAX_HISTORY_CHARS = 12_000;

function scaleText(criterion: Criterion): string {
  const { min, max, labels } = criterion.scale;
  const named = labels
    ? `; ${Object.entries(labels)
        .map(([point, label]) => `${point} = ${label}`)
        .join(', ')}`
    : '';
  return `integer ${min}..${max}${named}`;
}

function historyText(item: RewardItem): string {
  const turns = (item.history ?? []).map(
    (turn, i) => `[${i + 1}] action: ${turn.action}\nobservation: ${turn.observation}`,
  );
  let text = turns.join('\n');
  if (text.length > MAX_HISTORY_CHARS) text = `…${text.slice(text.length - MAX_HISTORY_CHARS)}`;
  return text === '' ? '(none)' : text;
}

/**
 * The judge is asked for every criterion at once and answers one JSON object of points, so a
 * rubric costs one request per item whatever its length.
 */
export function criteriaJudgePrompt(
  item: RewardItem,
  criteria: readonly Criterion[],
): JudgeMessage[] {
  const list = criteria
    .map(
      (criterion) =>
        `- "${criterion.id}" (${criterion.category}, ${scaleText(criterion)}): ${criterion.text}`,
    )
    .join('\n');
  return [
    {
      role: 'system',
      content:
        'You grade how well a simulated environment observation matches the real one. Score each criterion on its scale. Pitfall criteria: a high score means the pitfall IS present. Answer with one JSON object mapping each criterion id to its integer score and nothing else.',
    },
    {
      role: 'user',
      content: [
        `Domain: ${item.domain ?? 'unknown'}`,
        `History:\n${historyText(item)}`,
        `Action:\n${item.action ?? '(none)'}`,
        `Real observation:\n${item.reference}`,
        `Simulated observation:\n${item.prediction}`,
        `Criteria:\n${list}`,
      ].join('\n\n'),
    },
  ];
}

/** The last JSON object in the answer (models may think aloud first); points outside a scale are dropped. */
export function parseCriteriaAnswer(
  answer: string,
  criteria: readonly Criterion[],
): CriterionPoints {
  const points = new Map<string, number | null>();
  const object = lastJsonObject(answer);
  for (const criterion of criteria) {
    const raw = object?.[criterion.id];
    const value = typeof raw === 'string' ? Number(raw) : raw;
    const { min, max } = criterion.scale;
    points.set(
      criterion.id,
      typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
        ? value
        : null,
    );
  }
  return points;
}

function lastJsonObject(text: string): Record<string, unknown> | null {
  for (let end = text.lastIndexOf('}'); end >= 0; end = text.lastIndexOf('}', end - 1)) {
    let depth = 0;
    for (let start = end; start >= 0; start--) {
      const char = text[start];
      if (char === '}') depth++;
      else if (char === '{' && --depth === 0) {
        try {
          const parsed: unknown = JSON.parse(text.slice(start, end + 1));
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
            return Object.fromEntries(Object.entries(parsed));
        } catch {
          // Not JSON (braces inside prose): try the next closing brace to the left.
        }
        break;
      }
    }
  }
  return null;
}
