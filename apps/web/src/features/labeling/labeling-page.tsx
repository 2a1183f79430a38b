import { useQuery } from '@tanstack/react-query';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';
import { AccountsPanel } from '../auth/accounts-panel';
import { CreateQueueForm } from './create-queue-form';
import { DeleteQueueButton } from './delete-queue';
import './labeling.css';

/** Every label queue with its progress; researchers also create queues and open agreement. */
export function LabelingPage() {
  const trpc = useTRPC();
  const queues = useQuery(trpc.labels.queues.queryOptions());
  const whoami = useQuery(trpc.auth.whoami.queryOptions());
  const principal = whoami.data;
  const researcher =
    principal?.kind === 'program' ||
    (principal?.kind === 'user' && principal.role === 'researcher');
  return (
    <div className="page">
      <header className="page-header">
        <h1>Labeling</h1>
      </header>
      <p className="muted">
        People grade a bench run's predictions against the real observations, criterion by
        criterion, by keyboard. A queue's Agreement page then compares the labelers with each other
        and with the judge and the rules, and lists the disagreements to settle.
      </p>
      {researcher && <CreateQueueForm />}
      {queues.error && <p className="status status-error">{queues.error.message}</p>}
      {queues.data?.length === 0 ? (
        <p className="muted" data-testid="no-queues">
          No label queues yet.{' '}
          {researcher
            ? 'Create one above from a finished bench run.'
            : 'A researcher creates them from bench runs.'}
        </p>
      ) : (
        <table className="table" aria-label="Label queues">
          <thead>
            <tr>
              <th>Queue</th>
              <th>Predictions of</th>
              <th>Labelers</th>
              <th>Items</th>
              <th>Labels / item</th>
              <th>Complete</th>
              <th>Mode</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(queues.data ?? []).map((queue) => (
              <tr key={queue.id} data-testid={`queue-${queue.id}`}>
                <td>
                  <Link to={{ page: 'label-queue', queueId: queue.id }}>{queue.name}</Link>
                </td>
                <td>
                  {queue.runId === null || queue.sim === null ? (
                    <span className="muted" title="A blind queue keeps its simulator from labelers">
                      hidden (blind)
                    </span>
                  ) : researcher ? (
                    <>
                      <Link
                        to={{
                          page: 'bench-run',
                          runId: queue.runId,
                          score: null,
                          cell: null,
                          item: null,
                        }}
                      >
                        run {queue.runId}
                      </Link>{' '}
                      · <span className="mono">{queue.sim}</span>
                    </>
                  ) : (
                    <>
                      run {queue.runId} · <span className="mono">{queue.sim}</span>
                    </>
                  )}
                </td>
                <td>
                  {queue.labelers === null ? (
                    <span className="muted">anyone</span>
                  ) : (
                    queue.labelers.join(', ')
                  )}
                </td>
                <td className="mono">{queue.items}</td>
                <td className="mono">{queue.labelsPerItem}</td>
                <td className="mono">
                  {queue.completeItems} / {queue.items}
                  {queue.skippedItems > 0 && (
                    <span
                      className="muted"
                      title="Items still short of labels that a labeler skipped: they wait until someone else labels them, or the labeler takes the skips back."
                    >
                      {' '}
                      · {queue.skippedItems} skipped
                    </span>
                  )}
                </td>
                <td>{queue.blind ? 'blind' : 'open'}</td>
                <td>
                  <Link to={{ page: 'label-queue', queueId: queue.id }} className="button">
                    Grade
                  </Link>{' '}
                  {researcher && (
                    <>
                      <Link to={{ page: 'label-agreement', queueId: queue.id }} className="button">
                        Agreement
                      </Link>{' '}
                      <DeleteQueueButton queue={queue} />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {researcher && <AccountsPanel />}
    </div>
  );
}
