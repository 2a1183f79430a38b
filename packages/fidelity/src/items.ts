import {
  isTransition,
  type Action,
  type ObservationKind,
  type Trajectory,
} from '@terrarium/schema';
import type { HistoryTurn } from './types';

/** One scoring item: a transition with the history before it (teacher forcing, as AgentWorldBench). */
export interface ScoringItem {
  trajectoryId: string;
  stepIndex: number;
  /** The action as text, as the simulator sees it. */
  action: string;
  /** Tool name, or for commands the interpreter and program (`bash:ls`, `aci:open`). */
  tool: string;
  kind: ObservationKind;
  real: string;
  /** Earlier transitions of the trajectory, oldest first. */
  history: HistoryTurn[];
}

/** The action as one line of text: `name {json arguments}` for calls, the command itself otherwise. */
export function actionText(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return `${action.name} ${JSON.stringify(action.arguments)}`;
    case 'command':
      return action.command;
    case 'keystrokes':
      return action.keys;
    case 'message':
      return action.text;
  }
}

export function toolOf(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return action.name;
    case 'command':
      return `${action.interpreter ?? 'shell'}:${action.command.trim().split(/\s+/)[0] ?? ''}`;
    case 'keystrokes':
      return 'keystrokes';
    case 'message':
      return 'message';
  }
}

export function scoringItems(trajectory: Trajectory): ScoringItem[] {
  const items: ScoringItem[] = [];
  const turns: HistoryTurn[] = [];
  for (const step of trajectory.steps) {
    if (!isTransition(step) || step.observation === null) continue;
    const action = actionText(step.action);
    items.push({
      trajectoryId: trajectory.externalId,
      stepIndex: step.index,
      action,
      tool: toolOf(step.action),
      kind: step.observation.kind,
      real: step.observation.content,
      history: turns.slice(),
    });
    turns.push({ action, observation: step.observation.content });
  }
  return items;
}
