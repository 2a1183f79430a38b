import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';

/**
 * A generation's stored rollouts, loaded when asked for: one link per rollout into the replay
 * viewer (lineage, probe, passed or failed; `sim` marks the simulated twin).
 */
export function GenerationRollouts({ runId, generation }: { runId: string; generation: number }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const rollouts = useQuery({
    ...trpc.curriculum.rollouts.queryOptions({ runId, generation }),
    enabled: open,
  });
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Rollouts of generation {generation}
      </button>
    );
  if (rollouts.error) return <span role="alert">{rollouts.error.message}</span>;
  if (rollouts.data === undefined) return <span>loading…</span>;
  return (
    <ul className="curriculum-rollouts" aria-label={`Rollouts of generation ${generation}`}>
      {rollouts.data.map((rollout) => (
        <li key={rollout.trajectoryId}>
          <Link
            to={{
              page: 'replay',
              datasetId: rollout.datasetId,
              trajectoryId: rollout.trajectoryId,
              step: 0,
            }}
          >
            {rollout.lineageId} #{rollout.probe}
            {rollout.mode === 'simulated' ? ' (sim)' : ''}: {rollout.passed ? 'passed' : 'failed'}
          </Link>
        </li>
      ))}
    </ul>
  );
}
