import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
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
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.labels.deleteQueue.mutationOptions({
      onSuccess: async () => {
        setConfirming(false);
        await queryClient.invalidateQueries({ queryKey: trpc.labels.queues.queryKey() });
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
    <span role="group" aria-label={`Delete queue ${queue.name}`}>
      Delete {queue.name}
      {queue.labels > 0
        ? ` and its ${plural(queue.labels, 'label')}? Export them first (Agreement page).`
        : '?'}{' '}
      <button
        type="button"
        className="danger"
        disabled={remove.isPending}
        onClick={() => remove.mutate({ queueId: queue.id })}
      >
        Delete {queue.name}
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
