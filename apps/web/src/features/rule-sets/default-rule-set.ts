import { useQuery } from '@tanstack/react-query';
import type { Domain } from '@terrarium/schema';
import { useTRPC } from '../../app/trpc';
import { previewableRuns } from './preview-query';

/**
 * The domain of the bench run the preview grades by default (the first finished one, as
 * `PreviewPanel` picks it), read from its first item: the page then opens on that domain's default
 * rule set rather than on whichever name sorts first. For a bench of one domain that is the
 * domain; a mixed bench gives its first item's, which the preview's sample (ordered by item id)
 * may not share, and the preview then says so. `settled` once that is known, or known not to be
 * (no finished run, or runs this user may not read).
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
      limit: 1,
    }),
    enabled: run !== null,
  });
  const settled =
    runs.isError || (runs.isSuccess && (run === null || items.isSuccess || items.isError));
  return { settled, domain: items.data?.rows[0]?.domain ?? null };
}

/** The rule set to open first: the default of the preview run's domain when listed, else the first. */
export function defaultRuleSetName(names: readonly string[], domain: Domain | null): string | null {
  const own = domain === null ? undefined : names.find((name) => name === `default-${domain}`);
  return own ?? names[0] ?? null;
}
