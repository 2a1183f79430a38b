import { useQuery } from '@tanstack/react-query';
import { metricDefinition } from '@terrarium/fidelity';
import { UNSEEN_CUSTOMERS } from '@terrarium/inference';
import { Fragment } from 'react';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import {
  evaluatedColumns,
  formatInterval,
  versusRetrieval,
  type SimulatorFigures,
} from './evaluation-table';

/**
 * A served model folder's evaluation (its fidelity.json, written by models/evaluate.ts): per source,
 * on the held-out tasks, the content score and token F1 of the model, of retrieval alone and of the
 * model without retrieved context, each with its 95% bootstrap interval.
 */
export function ModelEvaluation({ model }: { model: string }) {
  const trpc = useTRPC();
  const evaluation = useQuery(trpc.models.evaluation.queryOptions({ model }));
  return (
    <section className="panel" data-testid="model-evaluation">
      <header className="panel-header">
        <h3>How {model} scores</h3>
        <span className="muted">
          held-out tasks (every trial of a task on one side of the split), mean and 95% bootstrap
          interval, 0–100
        </span>
      </header>
      <div className="panel-body">
        <QueryStatus
          label="the evaluation"
          isPending={evaluation.isPending}
          error={evaluation.error}
        />
        {evaluation.data?.status === 'missing' || evaluation.data?.status === 'unreadable' ? (
          <p className="muted">{evaluation.data.reason}</p>
        ) : null}
        {evaluation.data?.status === 'ok' && (
          <>
            <EvaluationTable bySource={evaluation.data.bySource} />
            <p className="muted" data-testid="not-a-bench-split">
              Every transition of the model’s held-out tasks, all simulators on the same ones. A
              bench’s leaderboard scores its own sample of items (its test split, at most five
              transitions per trajectory), so retrieval’s figure there differs from the one here.
              The model’s figures are those of its fp32 file (model.onnx), as the server runs it;
              the browser loads the int8 file by default, scored in models/README.md.
            </p>
            <UnseenCustomersNote sources={Object.keys(evaluation.data.bySource)} />
            <NeighborAnswersNote figures={evaluation.data.bySource['all']?.['model']} />
          </>
        )}
      </div>
    </section>
  );
}

/** Why some rows say "unseen customers only", and why tau2 airline has no such row. */
function UnseenCustomersNote({ sources }: { sources: readonly string[] }) {
  if (!sources.some((source) => source.endsWith(UNSEEN_CUSTOMERS))) return null;
  return (
    <p className="muted" data-testid="unseen-customers">
      tau2-bench’s airline tasks are tau-bench’s carried over under other ids, and both run on one
      database of customers: a held-out airline task about a customer with a task on the training
      side is not an unseen task. Rows marked “{UNSEEN_CUSTOMERS.trim()}” leave those out; every
      held-out tau2 airline task is one of them, so that dataset has no such row.
    </p>
  );
}

/** How many of the model's answers are not its own writing, said where its figures are. */
function NeighborAnswersNote({ figures }: { figures: SimulatorFigures | undefined }) {
  const answered = figures?.neighborAnswers ?? 0;
  if (figures === undefined || answered === 0) return null;
  return (
    <p className="muted" data-testid="neighbor-answers">
      The model answered {answered} of {figures.transitions} held-out transitions with the first
      neighbor’s recorded answer, whole: that answer was longer than what the model’s context leaves
      after the prompt, so the model could only have written its beginning.
    </p>
  );
}

function EvaluationTable({
  bySource,
}: {
  bySource: Readonly<Record<string, Readonly<Record<string, SimulatorFigures>>>>;
}) {
  const columns = evaluatedColumns(bySource);
  const sources = Object.keys(bySource).toSorted();
  return (
    <table className="data-table" data-testid="evaluation-table">
      <thead>
        <tr>
          <th scope="col" rowSpan={2}>
            Source
          </th>
          {columns.map((column) => (
            <th key={column.key} scope="colgroup" colSpan={2}>
              {column.label}
            </th>
          ))}
          <th scope="col" rowSpan={2} title="above or below only when the 95% intervals separate">
            model vs retrieval (content)
          </th>
        </tr>
        <tr>
          {columns.map((column) => (
            <Fragment key={column.key}>
              <th scope="col" title={metricDefinition('rule', 'content')?.definition}>
                content
              </th>
              <th scope="col" title={metricDefinition('rule', 'token-f1')?.definition}>
                token F1
              </th>
            </Fragment>
          ))}
        </tr>
      </thead>
      <tbody>
        {sources.map((source) => {
          const row = bySource[source] ?? {};
          const transitions = Object.values(row)[0]?.transitions;
          return (
            <tr key={source} data-source={source}>
              <th scope="row">
                {source}
                {transitions === undefined ? null : (
                  <span className="muted"> ({transitions} transitions)</span>
                )}
              </th>
              {columns.map((column) => {
                const figures = row[column.key];
                return figures === undefined ? (
                  <td key={column.key} colSpan={2} className="muted">
                    –
                  </td>
                ) : (
                  <Fragment key={column.key}>
                    <td className="mono" data-sim={column.key} data-metric="content">
                      {formatInterval(figures.content)}
                    </td>
                    <td className="mono" data-sim={column.key} data-metric="token-f1">
                      {formatInterval(figures.tokenF1)}
                    </td>
                  </Fragment>
                );
              })}
              <td data-testid="versus-retrieval">
                {versusRetrieval(row['model']?.content, row['retrieval']?.content) ?? '–'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
