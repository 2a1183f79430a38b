import type { RolloutDivergence, TaskDivergences } from '@terrarium/api';
import type { Observation } from '@terrarium/schema';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';
import { ObservationDiff } from '../compare/observation-diff';
import { ObservationView } from '../observations/observation-view';
import '../compare/compare.css';
import { formatPercent, formatScore } from '../../app/format';

function terminal(content: string): Observation {
  return { kind: 'terminal', content, callId: null };
}

/** The two answers to one action side by side, and the diff Compare shows between them. */
function DivergencePair({ divergence }: { divergence: RolloutDivergence }) {
  const executed = terminal(divergence.executed);
  const predicted = terminal(divergence.predicted);
  return (
    <section className="divergence-pair" aria-label="Divergent step">
      <p>
        <code>{divergence.action}</code>, probe {divergence.probe}, step {divergence.step + 1}:{' '}
        {divergence.contentScore === null
          ? 'the simulator gave no answer (not scored)'
          : `content score ${formatScore(divergence.contentScore)}`}
        .{' '}
        <Link
          to={{
            page: 'replay',
            datasetId: divergence.datasetId,
            trajectoryId: divergence.trajectoryId,
            step: divergence.step,
          }}
        >
          Open the simulated rollout at this step
        </Link>
      </p>
      <div className="compare-columns">
        <div className="compare-real" aria-label="Executable world">
          <h4>Executable world</h4>
          <ObservationView observation={executed} />
        </div>
        <div aria-label="Simulator">
          <h4>Simulator</h4>
          <ObservationView observation={predicted} />
        </div>
      </div>
      <h4>Diff (executable → simulated)</h4>
      <ObservationDiff real={executed} predicted={predicted} />
    </section>
  );
}

/**
 * Divergences that are one and the same across probes (same step, action and both answers: a
 * scripted policy's probes repeat each other) as one row listing its probes, in first-seen order
 * (walk 47: eight identical rows, one per probe).
 */
export function sameAcrossProbes(
  divergences: readonly RolloutDivergence[],
): { divergence: RolloutDivergence; probes: number[] }[] {
  const groups = new Map<string, { divergence: RolloutDivergence; probes: number[] }>();
  for (const divergence of divergences) {
    const key = JSON.stringify([
      divergence.step,
      divergence.action,
      divergence.executed,
      divergence.predicted,
    ]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { divergence, probes: [divergence.probe] });
    else group.probes.push(divergence.probe);
  }
  return [...groups.values()];
}

/** Probes as a short list: `3`, `1, 4`, or `1–8` for a run of consecutive ones. */
export function probeList(probes: readonly number[]): string {
  const sorted = probes.toSorted((a, b) => a - b);
  const first = sorted[0];
  const last = sorted.at(-1);
  if (first === undefined || last === undefined) return '';
  if (sorted.length > 2 && last - first === sorted.length - 1) return `${first}–${last}`;
  return sorted.join(', ');
}

function TaskRows({
  task,
  open,
  onOpen,
}: {
  task: TaskDivergences;
  open: string | null;
  onOpen: (key: string | null) => void;
}) {
  return (
    <tbody>
      <tr className="divergence-task">
        <th scope="rowgroup" colSpan={4}>
          {task.taskId} (tier {task.tier}): simulated {formatPercent(task.passRateSimulated)} vs
          executable {formatPercent(task.passRateExecutable)}, {task.divergent.length} of{' '}
          {task.steps} steps diverged
        </th>
      </tr>
      {sameAcrossProbes(task.divergent).map(({ divergence, probes }) => {
        const key = `${divergence.trajectoryId}:${divergence.step}`;
        const shown = open === key;
        return (
          <tr key={key} className="divergence-step">
            <td className="num" title={`probes ${probes.join(', ')}`}>
              {probeList(probes)}
            </td>
            <td className="num">{divergence.step + 1}</td>
            <td>
              <button
                type="button"
                aria-expanded={shown}
                onClick={() => onOpen(shown ? null : key)}
              >
                {divergence.action}
              </button>
              {shown ? <DivergencePair divergence={divergence} /> : null}
            </td>
            <td className="num">{formatScore(divergence.contentScore)}</td>
          </tr>
        );
      })}
    </tbody>
  );
}

/**
 * Per task of one generation: the simulated and executable pass rates, and each step where the
 * simulator answered the policy's action differently from the executable world, lowest content
 * score first; a click shows both observations side by side with their diff.
 */
export function GenerationDivergences({
  runId,
  generation,
}: {
  runId: string;
  generation: number;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState<string | null>(null);
  const divergences = useQuery(trpc.curriculum.divergences.queryOptions({ runId, generation }));
  if (divergences.error) return <p role="alert">{divergences.error.message}</p>;
  if (divergences.data === undefined) return <p>loading…</p>;
  return (
    <table
      className="curriculum-divergences"
      aria-label={`Divergent steps of generation ${generation}`}
    >
      <thead>
        <tr>
          <th className="num">Probes</th>
          <th className="num">Step</th>
          <th>Action (click for both observations and the diff)</th>
          <th className="num">Content score</th>
        </tr>
      </thead>
      {divergences.data.map((task) => (
        <TaskRows key={task.lineageId} task={task} open={open} onOpen={setOpen} />
      ))}
    </table>
  );
}
