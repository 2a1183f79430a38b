import { useQuery } from '@tanstack/react-query';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { Playground } from './playground';

/** The simulators the server offers, and a playground that asks one of them for a single step. */
export function ModelsPage() {
  const trpc = useTRPC();
  const available = useQuery(trpc.simulate.available.queryOptions());
  return (
    <div className="page models-page">
      <div className="page-header">
        <h1>Models</h1>
        <span className="count">world models and simulators</span>
      </div>
      <QueryStatus label="simulators" isPending={available.isPending} error={available.error} />
      {available.data && (
        <table className="data-table" data-testid="models-list">
          <thead>
            <tr>
              <th scope="col">Simulator</th>
              <th scope="col">Spec</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {available.data.map((option) => (
              <tr key={option.spec} data-spec={option.spec}>
                <th scope="row">{option.label}</th>
                <td className="mono">{option.spec}</td>
                <td>{option.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted">
        Any OpenAI-compatible endpoint can be used as <code>openai:URL#MODEL</code> where a
        simulator is chosen (the server accepts only hosts on its allowlist).
      </p>
      <Playground available={available.data ?? []} />
    </div>
  );
}
