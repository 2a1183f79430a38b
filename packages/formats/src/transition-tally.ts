import { isTransition, plural, type SourceFormat, type Trajectory } from '@terrarium/schema';

/**
 * Counts what one file's trajectories hold, so an import can say why a file that was recognized
 * gives 0 transitions (nothing for a world model to learn from) instead of importing it silently.
 */
export class TransitionTally {
  private trajectories = 0;
  private transitions = 0;
  private actions = 0;
  private messages = 0;
  private unansweredResults = 0;

  /** The counts, for a resumed import to carry on from (`TransitionTally.from`). */
  counts(): TallyCounts {
    const { trajectories, transitions, actions, messages, unansweredResults } = this;
    return { trajectories, transitions, actions, messages, unansweredResults };
  }

  static from(counts: TallyCounts): TransitionTally {
    const tally = new TransitionTally();
    tally.trajectories = counts.trajectories;
    tally.transitions = counts.transitions;
    tally.actions = counts.actions;
    tally.messages = counts.messages;
    tally.unansweredResults = counts.unansweredResults;
    return tally;
  }

  add(trajectory: Trajectory): void {
    this.trajectories++;
    for (const step of trajectory.steps) {
      if (isTransition(step)) this.transitions++;
      if (step.action.type === 'message') this.messages++;
      else this.actions++;
    }
    const unanswered = trajectory.metadata.unansweredResults;
    if (typeof unanswered === 'number') this.unansweredResults += unanswered;
    const observations = trajectory.metadata.unansweredObservations;
    if (Array.isArray(observations)) this.unansweredResults += observations.length;
  }

  /** Why the file gives no transitions, or null when it gives some (or no trajectory at all). */
  zeroTransitionReason(format: SourceFormat | null): string | null {
    if (this.trajectories === 0 || this.transitions > 0) return null;
    const as = format === null ? 'recognized' : `recognized as ${format}`;
    const trajectories = plural(this.trajectories, 'trajectory', 'trajectories');
    let why: string;
    if (this.actions === 0 && this.messages === 0) why = `${trajectories} with no steps`;
    else if (this.actions === 0) {
      const hold = this.trajectories === 1 ? 'holds' : 'hold';
      why = `${trajectories} ${hold} only messages (${plural(this.messages, 'message', 'messages')}): no tool call, command or keystrokes`;
    } else why = `none of ${plural(this.actions, 'action', 'actions')} has an observation`;
    if (this.unansweredResults > 0)
      why += `; ${plural(this.unansweredResults, 'result answers', 'results answer')} no action`;
    return `${as} but yields 0 transitions: ${why}`;
  }
}

export interface TallyCounts {
  trajectories: number;
  transitions: number;
  actions: number;
  messages: number;
  unansweredResults: number;
}
