import { useQuery } from '@tanstack/react-query';
import type { Domain } from '@terrarium/schema';
import { useTRPC } from '../../app/trpc';
import { previewableRuns } from './preview-query';

/**
 * Items read to tell a run's main domain, the first by id: ids are content hashes, so they are a
 * uniform sample of the bench (the first item in build order gave the demo's terminal rules,
 * its first source being SWE-agent, while 90% of its items and the preview's sample are tool).
 */
export const DOMAIN_SAMPLE = 40;

/** The domain most of `rows` have; the first seen among equals; null for none. */
export function mainDomain(rows: readonly { domain: Domain }[]): Domain | null {
  const counts = new Map<Domain, number>();
  for (const { domain } of rows) counts.set(domain, (counts.get(domain) ?? 0) + 1);
  let best: Domain | null = null;
  for (const [domain, count] of counts)
    if (best === null || count > (counts.get(best) ?? 0)) best = domain;
  return best;
}

/**
 * The main domain of the bench run the preview grades by default (the first finished one, as
 * `PreviewPanel` picks it), read from a sample of its items: the page then opens on that domain's
 * default rule set rather than on whichever name sorts first. `settled` once that is known, or
 * known not to be (no finished run, or runs this user may not read).
 */
export function usePreviewRunDomain(): { settled: boolean; domain: Domain | null } {
  const trpc = useTRPC();
  const runs = useQuery(trpc.bench.runs.queryOptions({}));
  const run = previewableRuns(runs.data)[0] ?? null;
  const items = useQuery({
    ...trpc.bench.items.queryOptions({
      name: run?.bench ?? '',
      version: run?.benchVersion ?? 1,
      split: run?.split ?? 'test',
      offset: 0,
      limit: DOMAIN_SAMPLE,
      order: 'id',
    }),
    enabled: run !== null,
  });
  const settled =
    runs.isError || (runs.isSuccess && (run === null || items.isSuccess || items.isError));
  return { settled, domain: mainDomain(items.data?.rows ?? []) };
}

/** The rule set to open first: the default of the preview run's domain when listed, else the first. */
export function defaultRuleSetName(names: readonly string[], domain: Domain | null): string | null {
  const own = domain === null ? undefined : names.find((name) => name === `default-${domain}`);
  return own ?? names[0] ?? null;
}
