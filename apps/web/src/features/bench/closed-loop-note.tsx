import type { BenchRunMode } from '@terrarium/schema';
import { plural } from '../../app/format';

/**
 * Said wherever a closed-loop run's item is shown with its recorded history: the simulator did not
 * see that history. Its own predictions stood in for the last turns' observations, and the run
 * does not keep them (walk 44: a labeler graded consistency against a history the model never had).
 */
export function ClosedLoopNote({ mode }: { mode: BenchRunMode }) {
  if (mode.kind === 'open') return null;
  return (
    <p className="muted" data-testid="closed-loop-note">
      Closed loop: for this prediction the simulator saw its own predictions in place of the
      recorded observations of up to the last {plural(mode.steps, 'turn')} of the history; the
      recorded ones are what is shown.
    </p>
  );
}
