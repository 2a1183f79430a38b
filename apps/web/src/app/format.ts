import type { Outcome } from '@terrarium/schema';

const integerFormat = new Intl.NumberFormat('en-US');

export function formatCount(value: number): string {
  return integerFormat.format(value);
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}

export type OutcomeLabel = 'success' | 'failure' | 'unknown';

export function outcomeLabel(outcome: Outcome): OutcomeLabel {
  if (outcome.success === true) return 'success';
  if (outcome.success === false) return 'failure';
  return 'unknown';
}

export function formatReward(reward: number | null): string {
  if (reward === null) return '—';
  return Number.isInteger(reward) ? String(reward) : reward.toFixed(3);
}
