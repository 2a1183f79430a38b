import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConfirmDelete } from '../../app/confirm-delete';
import { plural } from '../../app/format';
import { useTRPC } from '../../app/trpc';

/**
 * Deleting a queue takes its labels with it, so it asks once more, saying how many, and points to
 * the export first (the Agreement page's JSONL).
 */
export function DeleteQueueButton({
  queue,
}: {
  queue: { id: string; name: string; labels: number };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.labels.deleteQueue.mutationOptions());
  return (
    <ConfirmDelete
      what="queue"
      name={queue.name}
      question={
        queue.labels > 0
          ? `Delete ${queue.name} and its ${plural(queue.labels, 'label')}? Export them first (Agreement page).`
          : `Delete ${queue.name}?`
      }
      pending={remove.isPending}
      error={remove.error}
      onConfirm={(done) =>
        remove.mutate(
          { queueId: queue.id },
          {
            onSuccess: async () => {
              done();
              await queryClient.invalidateQueries({ queryKey: trpc.labels.queues.queryKey() });
            },
          },
        )
      }
    />
  );
}
