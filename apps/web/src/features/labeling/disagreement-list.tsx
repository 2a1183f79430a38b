import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatUtc } from '../../app/format';
import { Link } from '../../app/link';
import { useSingleFlight } from '../../app/single-flight';
import { useTRPC } from '../../app/trpc';

/**
 * Items whose labelers disagree on a criterion, largest spread first, each settled by a
 * researcher's adjudication. Adjudications are stored apart; the labels stay as given.
 */
export function DisagreementList({ queueId }: { queueId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queue = useQuery(trpc.labels.queue.queryOptions({ queueId }));
  const rows = useQuery(trpc.labels.disagreements.queryOptions({ queueId, minSpread: 1 }));
  const [values, setValues] = useState<Record<string, string>>({});
  // Settled rows reopened to settle again (the latest adjudication counts; earlier ones are kept).
  const [reopened, setReopened] = useState<ReadonlySet<string>>(new Set());
  // Why a row's value was not settled, said beside it (a note below the table went unseen).
  const [refusals, setRefusals] = useState<Record<string, string>>({});
  const settling = useSingleFlight();
  const adjudicate = useMutation(
    trpc.labels.adjudicate.mutationOptions({
      onError: (error, input) =>
        setRefusals((old) => ({ ...old, [`${input.ordinal}/${input.criterion}`]: error.message })),
      onSuccess: async (_settled, input) => {
        const key = `${input.ordinal}/${input.criterion}`;
        setReopened((old) => new Set([...old].filter((entry) => entry !== key)));
        await queryClient.invalidateQueries({ queryKey: trpc.labels.disagreements.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.labels.agreement.queryKey() });
      },
    }),
  );
  // Adjudication is researchers' work: they see the queue's run and simulator.
  const run =
    queue.data?.runId != null && queue.data.sim !== null
      ? { runId: queue.data.runId, sim: queue.data.sim }
      : null;
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
            const settled = reopened.has(key) ? null : row.adjudication;
            return (
              <tr key={key} data-testid={`disagreement-${key}`}>
                <td className="mono">
                  {run && row.task !== null ? (
                    <Link
                      to={{
                        page: 'bench-run',
                        runId: run.runId,
                        score: null,
                        cell: { sim: run.sim, task: row.task },
                        item: row.itemId,
                      }}
                      title="Open the item in its bench run: history, action, real and simulated"
                    >
                      item {row.ordinal + 1}
                    </Link>
                  ) : (
                    `item ${row.ordinal + 1}`
                  )}
                </td>
                <td>{row.criterion}</td>
                <td>
                  {row.values.map((entry, index) => (
                    <span key={`${entry.labeler}-${index}`} className="disagreement-value">
                      {index > 0 && ' · '}
                      <span className="mono">
                        {entry.labeler} {entry.value ?? '—'}
                      </span>
                      {entry.flagged && (
                        <span title="flagged by the labeler" data-testid="label-flag">
                          {' '}
                          ⚑
                        </span>
                      )}
                      {entry.comment !== '' && (
                        <span className="muted" data-testid="label-comment">
                          {' '}
                          “{entry.comment}”
                        </span>
                      )}
                    </span>
                  ))}
                </td>
                <td>
                  {settled ? (
                    <span>
                      settled {settled.value ?? '—'} by {settled.researcherName}
                      <span className="muted" title={settled.createdAt}>
                        {' '}
                        on {formatUtc(settled.createdAt)}
                      </span>{' '}
                      <button
                        type="button"
                        className="button"
                        onClick={() => setReopened((old) => new Set([...old, key]))}
                      >
                        Change
                      </button>
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
                        if (!settling.take()) return;
                        setRefusals({ ...refusals, [key]: '' });
                        adjudicate.mutate(
                          { queueId, ordinal: row.ordinal, criterion: row.criterion, value },
                          { onSettled: settling.release },
                        );
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
