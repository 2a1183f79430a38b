import { useState, type ReactNode } from 'react';

/**
 * A Delete button that asks once more before anything is sent: what goes with the thing (labels,
 * trajectories) is said in `question`, and the confirming button names the thing again.
 */
export function ConfirmDelete({
  what,
  name,
  question,
  pending,
  error,
  onConfirm,
}: {
  /** The kind of thing, for the group's label: `queue`, `dataset`. */
  what: string;
  name: string;
  question: ReactNode;
  pending: boolean;
  error: { message: string } | null;
  /** Sends the delete; `done` closes the question (call it when the delete succeeded). */
  onConfirm(done: () => void): void;
}) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" className="button" onClick={() => setConfirming(true)}>
        Delete
      </button>
    );
  }
  return (
    <span role="group" aria-label={`Delete ${what} ${name}`}>
      {question}{' '}
      <button
        type="button"
        className="danger"
        disabled={pending}
        onClick={() => onConfirm(() => setConfirming(false))}
      >
        Delete {name}
      </button>{' '}
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {error && (
        <span className="status status-error" role="alert">
          {' '}
          {error.message}
        </span>
      )}
    </span>
  );
}
