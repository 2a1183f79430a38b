import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { seededRunsNote } from '@terrarium/schema';
import { ConfirmDelete } from '../../app/confirm-delete';
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
  const remove = useMutation(trpc.datasets.delete.mutationOptions());
  const runs = useQuery(trpc.curriculum.list.queryOptions());
  const seeded = (runs.data ?? []).filter((run) => run.dataset === dataset.name);
  const note = seededRunsNote(seeded.map((run) => run.id));
  return (
    <ConfirmDelete
      what="dataset"
      name={dataset.name}
      question={`Delete ${dataset.name} and its ${plural(dataset.trajectories, 'trajectory', 'trajectories')}? Benches built from it keep their items.${
        note === '' ? '' : ` ${note.charAt(0).toUpperCase()}${note.slice(1)}.`
      }`}
      pending={remove.isPending}
      error={remove.error}
      onConfirm={(done) =>
        remove.mutate(
          { datasetId: dataset.id },
          {
            onSuccess: async () => {
              done();
              // Every list that may show its trajectories (search, trajectory lists) is stale.
              await queryClient.invalidateQueries();
            },
          },
        )
      }
    />
  );
}
