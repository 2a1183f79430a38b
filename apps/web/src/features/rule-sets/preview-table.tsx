import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '../../app/trpc';

/** The preview call; its result type is the one the server's procedure declares. */
export function usePreview() {
  const trpc = useTRPC();
  return useMutation(trpc.rulesets.preview.mutationOptions());
}

type PreviewResult = NonNullable<ReturnType<typeof usePreview>['data']>;

function score(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toFixed(3);
}

/** Each sampled item's draft score, the saved version's, the difference and the breakdown. */
export function PreviewTable({ result }: { result: PreviewResult }) {
  if (!result.ok) {
    return (
      <p className="status status-error" data-testid="preview-invalid">
        The draft does not parse: {result.issues[0]?.field} {result.issues[0]?.message}
      </p>
    );
  }
  return (
    <table className="table" data-testid="preview-table">
      <thead>
        <tr>
          <th>Item</th>
          <th>Draft</th>
          <th>Saved</th>
          <th>Δ</th>
          <th>Breakdown (draft)</th>
        </tr>
      </thead>
      <tbody>
        {result.items.map((item) => (
          <tr key={item.itemId} data-testid="preview-row">
            <td className="mono" title={item.itemId}>
              {item.itemId.slice(0, 10)}
            </td>
            <td className="mono" data-testid="preview-draft">
              {score(item.draft.score)}
            </td>
            <td className="mono">{score(item.saved?.score)}</td>
            <td className="mono" data-testid="preview-delta">
              {item.delta === null ? '—' : `${item.delta >= 0 ? '+' : ''}${item.delta.toFixed(3)}`}
            </td>
            <td className="mono small">
              {item.draft.breakdown
                .map((entry) => `${entry.id} ${score(entry.score)}×${entry.weight}`)
                .join(' · ')}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
