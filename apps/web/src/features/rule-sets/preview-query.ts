import { keepPreviousData, skipToken, useQuery } from '@tanstack/react-query';
import type { BenchRun } from '@terrarium/schema';
import type { inferInput, inferOutput } from '@trpc/tanstack-react-query';
import { useTRPC, useTRPCClient } from '../../app/trpc';

type PreviewProcedure = ReturnType<typeof useTRPC>['rulesets']['preview'];
export type PreviewInput = inferInput<PreviewProcedure>;
/** What the server's procedure declares it returns. */
export type PreviewResult = inferOutput<PreviewProcedure>;
export type PreviewRow = Extract<PreviewResult, { ok: true }>['items'][number];

/**
 * A draft's preview, read as a query although the procedure is a mutation (a POST, because the
 * document may be far longer than a URL). Keyed under the `rulesets` path, it is refetched when a
 * save invalidates `rulesets`: the Saved column then scores against the version just saved, where
 * a fired-once mutation kept showing the baseline from before the save.
 */
export function usePreviewQuery(input: PreviewInput | null) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: [...trpc.rulesets.preview.mutationKey(), { input }],
    queryFn:
      input === null
        ? skipToken
        : ({ signal }) => client.rulesets.preview.mutate(input, { signal }),
    // The last table stays while the next keystroke's preview is scored, instead of blinking out.
    placeholderData: keepPreviousData,
  });
}

/** The runs a preview can grade (the finished ones, in the order listed); the first is the default. */
export function previewableRuns(runs: readonly BenchRun[] | undefined): BenchRun[] {
  return (runs ?? []).filter((run) => run.status === 'done');
}
