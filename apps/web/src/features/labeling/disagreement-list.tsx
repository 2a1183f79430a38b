import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../app/trpc';

/**
 * Items whose labelers disagree on a criterion, largest spread first, each settled by a
 * researcher's adjudication. Adjudications are stored apart; the labels stay as given.
 */
export function DisagreementList({ queueId }: { queueId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rows = useQuery(trpc.labels.disagreements.queryOptions({ queueId, minSpread: 1 }));
  const [values, setValues] = useState<Record<string, string>>({});
  // Why a row's value was not settled, said beside it (a note below the table went unseen).
  const [refusals, setRefusals] = useState<Record<string, string>>({});
  const adjudicate = useMutation(
    trpc.labels.adjudicate.mutationOptions({
      onError: (error, input) =>
        setRefusals((old) => ({ ...old, [`${input.ordinal}/${input.criterion}`]: error.message })),
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.labels.disagreements.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.labels.agreement.queryKey() });
      },
    }),
  );
  return (
    <section className="panel panel-body" aria-label="Disagreements">
      <h2>Disagreements to adjudicate</h2>
      {rows.data?.length === 0 && (
        <p className="muted">No item has labels more than a point apart.</p>
      )}
      <table className="table">
        <tbody>
          {(rows.data ?? []).map((row) => {
            const key = `${row.ordinal}/${row.criterion}`;
            return (
              <tr key={key} data-testid={`disagreement-${key}`}>
                <td className="mono">item {row.ordinal + 1}</td>
                <td>{row.criterion}</td>
                <td className="mono">
                  {row.values.map((entry) => `${entry.labeler} ${entry.value ?? '—'}`).join(' · ')}
                </td>
                <td>
                  {row.adjudication ? (
                    <span>
                      settled {row.adjudication.value ?? '—'} by {row.adjudication.researcherName}
                    </span>
                  ) : (
                    <form
                      onSubmit={(event) => {
                        event.preventDefault();
                        const text = (values[key] ?? '').trim();
                        const value = Number(text);
                        if (text === '' || !Number.isInteger(value)) {
                          setRefusals({ ...refusals, [key]: 'type a whole number on the scale' });
                          return;
                        }
                        setRefusals({ ...refusals, [key]: '' });
                        adjudicate.mutate({
                          queueId,
                          ordinal: row.ordinal,
                          criterion: row.criterion,
                          value,
                        });
                      }}
                    >
                      <input
                        aria-label={`Adjudicate ${key}`}
                        size={3}
                        value={values[key] ?? ''}
                        onChange={(event) => setValues({ ...values, [key]: event.target.value })}
                      />{' '}
                      <button type="submit" className="button">
                        Settle
                      </button>
                      {refusals[key] ? (
                        <span className="status-error" role="alert">
                          {' '}
                          {refusals[key]}
                        </span>
                      ) : null}
                    </form>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
