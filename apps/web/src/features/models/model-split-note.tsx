import { useQuery } from '@tanstack/react-query';
import { splitSide, type SplitSide } from '@terrarium/inference';
import type { TrajectoryDetail } from '@terrarium/schema';
import { useTRPC } from '../../app/trpc';

/** What a model's figures on this trajectory measure, by where its task lies in the model's data. */
export function splitSideText(model: string, side: SplitSide): string {
  switch (side.side) {
    case 'training':
      return `${model} was trained on this trajectory's task (${side.task}): its scores here show what it recalls, not how it does on an unseen task. Its held-out figures are on the Models page.`;
    case 'held-out':
      return side.customerSeen
        ? `${model} never trained on this task (${side.task}, held out), but its customer's profile and reservations appear in tasks it trained on (tau-bench and tau2-bench airline share one customer database): a held-out task, not an unseen customer.`
        : `${model} never trained on this task (${side.task}, held out): its scores here measure an unseen task.`;
    case 'unknown':
      return side.why === 'swe-files'
        ? `${model} trained on some SWE-agent runs, named by their files, which an import does not keep: whether it trained on this one cannot be told here.`
        : `This trajectory names no benchmark and task (a converted or re-exported log loses them), and ${model}'s split is kept by those: whether it trained on this trajectory cannot be told here. Its held-out figures are on the Models page.`;
    case 'outside':
      return side.task === null
        ? `${model}'s data has no ${side.benchmark ?? 'such'} trajectories: it never trained on this benchmark.`
        : `${model}'s data has no trial of this task (${side.task}): it never trained on it.`;
  }
}

/**
 * Says, beside a model's predictions on a trajectory, whether the model trained on its task (its
 * split.json): a figure on a training task overstates the model, and nothing else would say so.
 */
export function ModelSplitNote({
  model,
  trajectory,
}: {
  model: string;
  trajectory: TrajectoryDetail;
}) {
  const trpc = useTRPC();
  const split = useQuery(trpc.models.split.queryOptions({ model }, { staleTime: Infinity }));
  if (split.data?.status !== 'ok') return null;
  const side = splitSide(split.data.split, trajectory);
  return (
    <p className="note" data-testid="model-split-note" data-side={side.side}>
      {splitSideText(model, side)}
    </p>
  );
}
