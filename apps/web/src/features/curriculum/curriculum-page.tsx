import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { useTRPC } from '../../app/trpc';

const CHART_HEIGHT = 240;

/**
 * A curriculum played live by the scripted policy: per generation the pass rate, the fraction of
 * partially solved groups and the mean tier, then each lineage's tasks (which mutation made each
 * from which parent) and the mutations the gates refused, with their reasons.
 */
export function CurriculumPage() {
  const trpc = useTRPC();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [dataset, setDataset] = useState('builtin');
  const [generations, setGenerations] = useState(8);
  const run = useMutation(trpc.curriculum.run.mutationOptions());
  const points = (run.data?.generations ?? []).map((stats) => ({
    generation: stats.generation,
    passRate: stats.passRate,
    partialGroups: stats.partialGroups,
    meanTier: stats.meanTier,
  }));
  return (
    <section className="page curriculum-page">
      <h1>Curriculum</h1>
      <form
        className="curriculum-form"
        onSubmit={(event) => {
          event.preventDefault();
          run.mutate({ dataset, generations, policy: 'scripted' });
        }}
      >
        <label>
          Seed tasks{' '}
          <select
            aria-label="Seed tasks"
            value={dataset}
            onChange={(event) => setDataset(event.target.value)}
          >
            <option value="builtin">builtin (demo)</option>
            {(datasets.data ?? []).map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          Generations{' '}
          <input
            aria-label="Generations"
            type="number"
            min={1}
            max={30}
            value={generations}
            onChange={(event) => setGenerations(Number(event.target.value))}
          />
        </label>{' '}
        <button type="submit" disabled={run.isPending}>
          {run.isPending ? 'Playing…' : 'Play with the scripted policy'}
        </button>
      </form>
      {run.error ? <p role="alert">{run.error.message}</p> : null}
      {points.length > 0 ? (
        <>
          <h2>Per generation</h2>
          <figure aria-label="Curriculum chart">
            <ResponsiveContainer width="100%" minWidth={480} height={CHART_HEIGHT}>
              <LineChart data={points}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="generation" />
                <YAxis yAxisId="rate" domain={[0, 1]} />
                <YAxis yAxisId="tier" orientation="right" allowDecimals={false} />
                <Tooltip />
                <Legend />
                <Line yAxisId="rate" dataKey="passRate" name="pass rate" stroke="#2458b3" />
                <Line
                  yAxisId="rate"
                  dataKey="partialGroups"
                  name="partially solved groups"
                  stroke="#b45309"
                />
                <Line yAxisId="tier" dataKey="meanTier" name="mean tier" stroke="#15803d" />
              </LineChart>
            </ResponsiveContainer>
          </figure>
          <table className="curriculum-generations">
            <thead>
              <tr>
                <th>Generation</th>
                <th className="num">Tasks</th>
                <th className="num">Pass rate</th>
                <th className="num">Partially solved</th>
                <th className="num">Mean tier</th>
              </tr>
            </thead>
            <tbody>
              {points.map((point) => (
                <tr key={point.generation}>
                  <td>{point.generation}</td>
                  <td className="num">{run.data?.lineages.length}</td>
                  <td className="num">{(point.passRate * 100).toFixed(1)}%</td>
                  <td className="num">{(point.partialGroups * 100).toFixed(1)}%</td>
                  <td className="num">{point.meanTier.toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Lineages</h2>
          {(run.data?.lineages ?? []).map((lineage) => (
            <details key={lineage.id} className="curriculum-lineage">
              <summary>
                {lineage.id}: tier {lineage.nodes.length - 1}
                {lineage.capped ? ' (capped)' : ''}
              </summary>
              <ol>
                {lineage.nodes.map((node) => (
                  <li key={node.task.id}>
                    <strong>{node.axis ?? 'seed'}</strong> {node.description}
                    {node.parentId === null ? null : ` (from ${node.parentId})`}
                    {node.diff === null ? null : (
                      <pre>
                        {JSON.stringify(
                          {
                            worldAdded: node.diff.worldAdded,
                            verifier: node.diff.verifier.after.checks.map(({ check }) => check),
                          },
                          null,
                          2,
                        )}
                      </pre>
                    )}
                  </li>
                ))}
              </ol>
              {lineage.rejected.length > 0 ? (
                <ul className="curriculum-rejected">
                  {lineage.rejected.map((rejected) => (
                    <li key={`${rejected.generation}-${rejected.parentId}-${rejected.axis}`}>
                      refused {rejected.axis} of {rejected.parentId}: {rejected.reasons.join('; ')}
                    </li>
                  ))}
                </ul>
              ) : null}
            </details>
          ))}
        </>
      ) : null}
    </section>
  );
}
