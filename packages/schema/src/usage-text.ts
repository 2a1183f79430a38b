import type { RunUsage } from './bench';

// What model calls cost, in words: the run page, the re-judge status and the CLI say it alike.

const countFormat = new Intl.NumberFormat('en-US');
const usdFormat = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 4,
});

export function formatUsd(value: number): string {
  return usdFormat.format(value);
}

/**
 * Dollars of some model calls, or why there are none. The store knows when a cost is unknown
 * (`costUsd` null): an endpoint with no price set (TERRARIUM_PRICING) or one that reported no
 * tokens. Local simulators cost a true $0.00. `what` names what `unpriced.units` counts.
 */
export function costText(usage: RunUsage, what = 'unit'): string {
  if (usage.costUsd !== null) return formatUsd(usage.costUsd);
  const known = usage.unpriced?.knownUsd ?? 0;
  // Some priced, some not (a reply with no token usage, or an endpoint with no price).
  if (known > 0) {
    const units = usage.unpriced?.units ?? 0;
    const counted = `${countFormat.format(units)} ${units === 1 ? what : `${what}s`}`;
    return `at least ${formatUsd(known)} (the cost of ${counted} is not known)`;
  }
  const tokens = usage.inputTokens + usage.outputTokens;
  return tokens > 0 ? 'cost not priced' : 'cost unknown (no token usage reported)';
}

export function tokensText(usage: RunUsage): string {
  return `${countFormat.format(usage.inputTokens)} in / ${countFormat.format(usage.outputTokens)} out`;
}

/**
 * Tokens and dollars of some model calls: `1,234 in / 56 out tokens · $0.0123`, or that the
 * endpoint reported no usage (rather than 0 tokens, which would read as measured).
 */
export function usageText(usage: RunUsage, what = 'unit'): string {
  if (usage.inputTokens + usage.outputTokens === 0 && usage.costUsd === null)
    return 'no token usage reported';
  return `${tokensText(usage)} tokens · ${costText(usage, what)}`;
}
