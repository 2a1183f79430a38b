import { useQuery } from '@tanstack/react-query';
import { QueryStatus } from '../../app/query-status';
import { OneTimeLink } from '../../app/one-time-link';
import { useTRPC } from '../../app/trpc';
import { modelBaseUrl, modelFolderOfSpec } from './browser-model';
import { EndpointHealthCell } from './endpoint-health-cell';
import { ModelEvaluation } from './model-evaluation';
import { Playground } from './playground';
import { TrajectoryRun } from './trajectory-run';
import '../compare/compare.css';
import './models.css';

/** Where a simulator runs, and for endpoints whether they answer. */
function SimulatorStatus({ spec }: { spec: string }) {
  if (spec.startsWith('openai:')) return <EndpointHealthCell spec={spec} />;
  const folder = modelFolderOfSpec(spec);
  if (folder !== null) {
    return (
      <span>
        local model · server (onnxruntime-node) and browser:{' '}
        <OneTimeLink
          path={`${modelBaseUrl(folder)}config.json`}
          opens="tab"
          title="Its config.json"
        >
          <span className="mono">{modelBaseUrl(folder)}</span>
        </OneTimeLink>
      </span>
    );
  }
  return <span className="muted">built in (needs a dataset)</span>;
}

/**
 * The simulators the server offers with their health, and two ways to try them: a playground that
 * streams one prediction (in this browser or on the server), and a browser run over a trajectory.
 */
export function ModelsPage() {
  const trpc = useTRPC();
  const available = useQuery(trpc.simulate.available.queryOptions());
  const servedModels = (available.data ?? []).flatMap((option) => {
    const folder = modelFolderOfSpec(option.spec);
    return folder === null ? [] : [folder];
  });
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
              <th scope="col">Status</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {available.data.map((option) => (
              <tr key={option.spec} data-spec={option.spec}>
                <th scope="row">{option.label}</th>
                <td className="mono">{option.spec}</td>
                <td>
                  <SimulatorStatus spec={option.spec} />
                </td>
                <td>{option.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted">
        Any OpenAI-compatible endpoint can be used as <code>openai:URL#MODEL</code> where a
        simulator is chosen, or listed for everyone in <code>TERRARIUM_SIMULATORS</code> (the server
        accepts only hosts on its allowlist, <code>TERRARIUM_ENDPOINT_ALLOWLIST</code>).
      </p>
      {available.data && (
        <>
          <Playground available={available.data} servedModels={servedModels} />
          {servedModels.map((model) => (
            <ModelEvaluation key={model} model={model} />
          ))}
          <TrajectoryRun servedModels={servedModels} />
        </>
      )}
    </div>
  );
}
