import { readJson } from './api';

/** What a replay should show for one step of a tau2 simulation, read straight from the source file. */
export interface ExpectedStep {
  actor: 'agent' | 'user';
  /** The message text, or the tool name for a tool call. */
  text: string;
  toolCall: boolean;
  /** The tool's answer to the call, when there is one. */
  observation: string | null;
}

export interface Tau2Simulation {
  id: string;
  /** How the trajectory list names it: its task and trial (the id is a UUID). */
  listName: string;
  reward: number;
  messages: unknown[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readTau2Simulations(path: string): Tau2Simulation[] {
  const root = readJson(path);
  const simulations = isRecord(root) ? root.simulations : undefined;
  if (!Array.isArray(simulations)) throw new Error(`${path}: no simulations array`);
  return simulations.map((simulation: unknown) => {
    if (!isRecord(simulation) || typeof simulation.id !== 'string') {
      throw new Error(`${path}: a simulation without an id`);
    }
    const rewardInfo = simulation.reward_info;
    const reward =
      isRecord(rewardInfo) && typeof rewardInfo.reward === 'number' ? rewardInfo.reward : 0;
    const messages = Array.isArray(simulation.messages) ? simulation.messages : [];
    const taskId = typeof simulation.task_id === 'string' ? simulation.task_id : '?';
    const trial = typeof simulation.trial === 'number' ? ` · trial ${simulation.trial}` : '';
    return { id: simulation.id, listName: `task ${taskId}${trial}`, reward, messages };
  });
}

function toolCallsOf(message: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
}

/**
 * Steps of a simulation whose assistant turns make at most one tool call each (the case the journeys
 * use): one step per user or assistant message, a tool call's result being the step's observation.
 */
export function expectedSteps(simulation: Tau2Simulation): ExpectedStep[] {
  const steps: ExpectedStep[] = [];
  for (const message of simulation.messages) {
    if (!isRecord(message)) continue;
    if (message.role === 'tool') {
      const last = steps.at(-1);
      if (!last?.toolCall || typeof message.content !== 'string') {
        throw new Error(`${simulation.id}: a tool result that answers no call`);
      }
      last.observation = message.content;
      continue;
    }
    const actor = message.role === 'user' ? 'user' : 'agent';
    const calls = toolCallsOf(message);
    if (calls.length > 1) throw new Error(`${simulation.id}: more than one tool call in a turn`);
    const call = calls[0];
    if (call && typeof call.name === 'string') {
      steps.push({ actor, text: call.name, toolCall: true, observation: null });
    } else if (typeof message.content === 'string') {
      steps.push({ actor, text: message.content, toolCall: false, observation: null });
    }
  }
  return steps;
}

/** How many simulations call the tool `name` at least once. */
export function simulationsCalling(simulations: Tau2Simulation[], name: string): number {
  return simulations.filter((simulation) =>
    simulation.messages.some(
      (message) => isRecord(message) && toolCallsOf(message).some((call) => call.name === name),
    ),
  ).length;
}
