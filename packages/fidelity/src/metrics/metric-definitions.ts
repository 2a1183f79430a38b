import { parseRuleSetMetric } from '@terrarium/schema';
import { RULE_METRICS } from './rule-metrics';

/** The content-class score's key among a step's scores (beside the rule metrics). */
export const CONTENT_METRIC = 'content';

export type MetricSource = 'rule' | 'judge' | 'human';

export interface MetricDefinition {
  label: string;
  /** One line for hover text, in the user's words. */
  definition: string;
}

const RULE_DEFINITIONS = new Map<string, MetricDefinition>([
  [
    CONTENT_METRIC,
    {
      label: 'Content',
      definition:
        'Content-class score: deterministic content exact, live data close, the rest plausible.',
    },
  ],
  ...RULE_METRICS.map((metric): [string, MetricDefinition] => [
    metric.id,
    { label: metric.label, definition: metric.description },
  ]),
]);

// What a judge dimension asks the judge to rate (1-5, shown as 0-100), and the verdict modes.
const JUDGE_DEFINITIONS = new Map<string, MetricDefinition>([
  [
    'format',
    {
      label: 'Format',
      definition:
        'Judge, 1-5 as 0-100: does the simulated response have the real one’s structure and layout?',
    },
  ],
  [
    'factuality',
    {
      label: 'Factuality',
      definition:
        'Judge, 1-5 as 0-100: are values fixed by the history or the action reproduced exactly?',
    },
  ],
  [
    'consistency',
    {
      label: 'Consistency',
      definition:
        'Judge, 1-5 as 0-100: does the simulated response agree with the state the earlier turns set?',
    },
  ],
  [
    'realism',
    {
      label: 'Realism',
      definition: 'Judge, 1-5 as 0-100: is content never seen before plausible and well-formed?',
    },
  ],
  [
    'quality',
    {
      label: 'Quality',
      definition:
        'Judge, 1-5 as 0-100: would an agent take the same next step as with the real response?',
    },
  ],
  [
    'overall',
    { label: 'Overall', definition: 'Judge: the mean of the five dimensions, per item.' },
  ],
  [
    'turing-fooled',
    {
      label: 'Turing-fooled',
      definition:
        'Judge shown the real and the simulated response in random order: 100 when it took the simulated one for the real.',
    },
  ],
]);

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The one table of what every score means, for every view that names one (Compare, leaderboards,
 * charts, metric pickers): label and a one-line definition; null for a metric no table knows
 * (a label source's own criteria are named by their labeling queue).
 */
export function metricDefinition(source: MetricSource, metric: string): MetricDefinition | null {
  const saved = parseRuleSetMetric(metric);
  if (source === 'rule' && saved !== null && saved.criterion === null) {
    return {
      label: metric,
      definition: `Rule set ${saved.name}, version ${saved.version}: its score of each prediction, from its rules (judge criteria left out).`,
    };
  }
  if (source === 'judge' && saved !== null && saved.criterion !== null) {
    return {
      label: metric,
      definition: `Judge applying criterion ${saved.criterion} of rule set ${saved.name}, version ${saved.version}: its points on the criterion's scale, as 0-100.`,
    };
  }
  if (source === 'rule') return RULE_DEFINITIONS.get(metric) ?? null;
  if (source === 'judge') {
    if (metric.startsWith('pairwise:')) {
      const other = metric.slice('pairwise:'.length);
      return {
        label: `Pairwise vs ${other}`,
        definition: `Judge, pairwise: share of items whose response it found closer to the real one than ${other}’s (a tie counts half).`,
      };
    }
    return JUDGE_DEFINITIONS.get(metric) ?? null;
  }
  return {
    label: capitalized(metric),
    definition: `Human labels for ${metric}, averaged per item.`,
  };
}

/** The metric's label, its id capitalized when no table knows it. */
export function metricLabelOf(source: MetricSource, metric: string): string {
  return metricDefinition(source, metric)?.label ?? capitalized(metric);
}
