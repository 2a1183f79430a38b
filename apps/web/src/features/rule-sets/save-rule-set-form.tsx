import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { inferOutput } from '@trpc/tanstack-react-query';
import { useState } from 'react';
import { useTRPC } from '../../app/trpc';

export type SavedRuleSet = inferOutput<ReturnType<typeof useTRPC>['rulesets']['save']>;

/**
 * Saves the draft as the next version of the name in its document, with a message saying why.
 * Every `rulesets` query is refetched after a save: the list, the versions, and the preview, whose
 * Saved column is scored by the version just saved.
 */
export function SaveRuleSetForm({
  document,
  valid,
  label,
  onSaved,
}: {
  document: string;
  valid: boolean;
  /** Names the rule set and version a save makes, from the draft's own `name`. */
  label: string;
  onSaved: (saved: SavedRuleSet) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const save = useMutation(
    trpc.rulesets.save.mutationOptions({
      onSuccess: async (saved) => {
        setMessage('');
        onSaved(saved);
        await queryClient.invalidateQueries({ queryKey: trpc.rulesets.pathKey() });
      },
    }),
  );
  return (
    <form
      className="page-actions"
      aria-label="Save rule set"
      onSubmit={(event) => {
        event.preventDefault();
        if (message.trim() !== '') save.mutate({ document, message: message.trim() });
      }}
    >
      <input
        aria-label="Version message"
        placeholder="What changed, and why"
        value={message}
        onChange={(event) => setMessage(event.target.value)}
      />
      <button
        type="submit"
        className="button primary"
        disabled={save.isPending || message.trim() === '' || !valid}
      >
        {label}
      </button>
      {save.data && (
        <span className="status" data-testid="saved-version">
          Saved {save.data.name} v{save.data.version}
        </span>
      )}
      {save.error && <span className="status status-error">{save.error.message}</span>}
    </form>
  );
}
