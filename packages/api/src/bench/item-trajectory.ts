import type { BenchItem, Step, Trajectory } from '@terrarium/schema';

function step(index: number, turn: BenchItem['history'][number]): Step {
  return {
    index,
    actor: 'agent',
    action: turn.action,
    observation: turn.observation,
    reasoning: null,
    reward: null,
    timing: null,
    metadata: {},
  };
}

/**
 * A bench item as a one-branch trajectory (its history, then its action and real observation), so
 * that the trajectory-based backends (replay, retrieval) serve benches too, imported ones included.
 * `externalId` is the item's origin trajectory when known: retrieval leaves that one out.
 */
export function itemTrajectory(item: BenchItem): Trajectory {
  const steps = item.history.map((turn, index) => step(index, turn));
  steps.push(step(steps.length, { action: item.action, observation: item.real }));
  return {
    externalId: itemTrajectoryId(item),
    sourceFormat: 'agentworldbench',
    sourceBenchmark: item.task,
    domain: item.domain,
    task: item.context.task,
    systemPrompt: item.context.systemPrompt,
    tools: item.context.tools,
    toolsInferred: false,
    agentModel: null,
    outcome: { reward: null, success: null },
    steps,
    metadata: { benchItem: item.id },
    source: { file: 'bench', line: null, record: null },
  };
}

/** The `externalId` of `itemTrajectory(item)`. */
export function itemTrajectoryId(item: Pick<BenchItem, 'id' | 'origin'>): string {
  return item.origin.trajectory ?? item.id;
}
