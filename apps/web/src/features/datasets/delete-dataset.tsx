import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { plural } from '../../app/format';
import { useTRPC } from '../../app/trpc';

/**
 * Deleting a dataset takes its trajectories with it (benches built from it keep their items), so
 * it asks once more, saying how many. The way out of a file imported twice.
 */
export function DeleteDatasetButton({
  dataset,
}: {
  dataset: { id: string; name: string; trajectories: number };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.datasets.delete.mutationOptions({
      onSuccess: async () => {
        setConfirming(false);
        // Every list that may show its trajectories (search, the trajectory lists) is stale.
        await queryClient.invalidateQueries();
      },
    }),
  );
  if (!confirming) {
    return (
      <button type="button" className="button" onClick={() => setConfirming(true)}>
        Delete
      </button>
    );
  }
  return (
    <span role="group" aria-label={`Delete dataset ${dataset.name}`}>
      Delete {dataset.name} and its {plural(dataset.trajectories, 'trajectory', 'trajectories')}?
      Benches built from it keep their items.{' '}
      <button
        type="button"
        className="danger"
        disabled={remove.isPending}
        onClick={() => remove.mutate({ datasetId: dataset.id })}
      >
        Delete {dataset.name}
      </button>{' '}
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {remove.error && (
        <span className="status status-error" role="alert">
          {' '}
          {remove.error.message}
        </span>
      )}
    </span>
  );
}
