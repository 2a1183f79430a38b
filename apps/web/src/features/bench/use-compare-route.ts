import { useQuery } from '@tanstack/react-query';
import type { CellItem } from '@terrarium/schema';
import { useTRPC, useTRPCClient } from '../../app/trpc';
import type { Route } from '../../app/url-state';

const TRAJECTORY_PAGE = 500;
const STORE_ID = /^[1-9][0-9]*$/;

/**
 * The Compare route for a bench item's step. Benches built here name their origin by store ids;
 * a dataset may also be named by its name and a trajectory by its source id, so both are looked
 * up. Null while looking, or when the item came from an imported bench file or its trajectory is
 * gone.
 */
export function useCompareRoute(
  item: CellItem,
  runId?: string,
): {
  route: Route | null;
  isPending: boolean;
  error: { message: string } | null;
} {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const { dataset, trajectory, stepIndex } = item.origin;
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const datasetId =
    (
      datasets.data?.find((candidate) => candidate.id === dataset) ??
      datasets.data?.find((candidate) => candidate.name === dataset)
    )?.id ?? null;
  const storedTrajectory = async (id: string) => {
    // Store ids are decimal; a source id (`swe-agent/ctf__rev__rock.traj`) is never one, and
    // asking for it would only log a 404 in the console.
    if (!STORE_ID.test(id)) return null;
    try {
      return await client.trajectories.get.query({ trajectoryId: id });
    } catch {
      // Not a store id (or one deleted since): the source id lookup below decides.
      return null;
    }
  };
  const found = useQuery({
    queryKey: ['bench', 'item-trajectory', datasetId, trajectory],
    enabled: datasetId !== null && trajectory !== null,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async (): Promise<string | null> => {
      if (datasetId === null || trajectory === null) return null;
      const stored = await storedTrajectory(trajectory);
      if (stored?.datasetId === datasetId) return stored.id;
      // The search index may hold the id; if not, walk the dataset's trajectories page by page.
      const searched = await client.trajectories.list.query({
        filter: { datasetId, search: trajectory },
        offset: 0,
        limit: 50,
      });
      const hit = searched.rows.find((row) => row.externalId === trajectory);
      if (hit) return hit.id;
      for (let offset = 0; ; offset += TRAJECTORY_PAGE) {
        const page = await client.trajectories.list.query({
          filter: { datasetId },
          offset,
          limit: TRAJECTORY_PAGE,
        });
        const row = page.rows.find((candidate) => candidate.externalId === trajectory);
        if (row) return row.id;
        if (offset + TRAJECTORY_PAGE >= page.total) return null;
      }
    },
  });
  const route: Route | null =
    datasetId !== null && typeof found.data === 'string'
      ? {
          page: 'compare',
          datasetId,
          trajectoryId: found.data,
          sims: [item.sim],
          step: stepIndex ?? 0,
          ...(runId === undefined ? {} : { bench: { runId, itemId: item.itemId } }),
        }
      : null;
  return {
    route,
    isPending: datasets.isPending || (found.isPending && found.fetchStatus !== 'idle'),
    error: datasets.error ?? found.error,
  };
}
