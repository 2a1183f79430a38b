import {
  runGates,
  type EmptyWorldFactory,
  type GateReport,
  type WorldFactory,
} from '../tasks/gates';
import type { Task } from '../tasks/task';
import { CurriculumCheckpoint } from './checkpoint';
import type { OracleRun } from './derive';
import { AXES, mutate, type Axis, type MutationDiff } from './mutators';
import type { Policy } from './policy';
import { hashSeed, randomFor } from './random';
import { rollout, simulatedRollout, type Rollout, type RolloutSimulator } from './rollout';
import type { Scheduler } from './schedulers';

/** One task of a lineage: the root or a gated mutation of its parent. */
export interface LineageNode {
  task: Task;
  parentId: string | null;
  axis: Axis | null;
  generation: number;
  tier: number;
  description: string;
  diff: MutationDiff | null;
}

/** A mutation that did not become a task, with the reason (its own or the failed gates'). */
export interface RejectedMutation {
  parentId: string;
  axis: Axis;
  generation: number;
  reasons: string[];
}

export interface Lineage {
  id: string;
  nodes: LineageNode[];
  rejected: RejectedMutation[];
  /** The node now being played. */
  currentId: string;
  /** Next axis to try, round robin. */
  nextAxis: number;
  /** Set when the lineage reached the generation cap. */
  capped: boolean;
}

export interface GroupResult {
  lineageId: string;
  taskId: string;
  tier: number;
  axis: Axis | 'root';
  passes: number;
  rollouts: number;
  meanTurns: number;
  meanReward: number;
  /** The same probes with a simulator standing in for the world (null without `simulatorFor`). */
  simulated: { passes: number; divergentSteps: number; steps: number } | null;
}

export interface AxisStats {
  tasks: number;
  passRate: number;
  meanTurns: number;
  partialGroups: number;
}

/** Simulated vs executable over a generation: the gap a policy trained in the simulator exploits. */
export interface GapStats {
  passRateSimulated: number;
  passRateExecutable: number;
  /** Acting steps whose simulated observation differs from the world's, over all probes. */
  divergentSteps: number;
  steps: number;
}

export interface GenerationStats {
  generation: number;
  /** Tasks probed (one per lineage). */
  tasks: number;
  passRate: number;
  /** Fraction of groups solved by some but not all rollouts. */
  partialGroups: number;
  meanTurns: number;
  meanTier: number;
  byAxis: Partial<Record<Axis | 'root', AxisStats>>;
  mutations: { accepted: number; rejected: number };
  gap: GapStats | null;
  groups: GroupResult[];
}

/** Where a rollout came from, for storing it with its task and lineage. */
export interface RolloutOrigin {
  /** The task played (a lineage's node). */
  task: Task;
  lineageId: string;
  generation: number;
  tier: number;
  axis: Axis | 'root';
  probe: number;
  mode: 'executable' | 'simulated';
}

export interface CurriculumOptions {
  createWorld: WorldFactory;
  policy: Policy;
  scheduler: Scheduler;
  /** Probes per task and generation (default 8). */
  probes?: number;
  /** Mutations per lineage at most (default 15). */
  maxDepth?: number;
  seed?: number;
  /** Called with every rollout (a job stores them as trajectories). */
  onRollout?: (rollout: Rollout, origin: RolloutOrigin) => void | Promise<void>;
  /**
   * Runs every probe a second time with this simulator standing in for the world (`--sim`), so
   * each generation reports the simulated and the executable pass rate and the divergent steps.
   */
  simulatorFor?: (task: Task) => Promise<RolloutSimulator>;
  /** Oracle runs shared by the mutations of a run (see `MutationContext`); set by runCurriculum. */
  oracleRuns?: Map<string, Promise<OracleRun>>;
  /**
   * Worlds with nothing in them: a mutation whose oracle gets its answer there too (a count of
   * 0 once its files are gone) is refused (`world-needed`, see `runGates`).
   */
  emptyWorld?: EmptyWorldFactory;
}

export function newLineage(task: Task): Lineage {
  return {
    id: task.id,
    nodes: [
      {
        task,
        parentId: null,
        axis: null,
        generation: 0,
        tier: 0,
        description: 'seed task',
        diff: null,
      },
    ],
    rejected: [],
    currentId: task.id,
    nextAxis: 0,
    capped: false,
  };
}

/**
 * How far a lineage got. A generation probes each lineage's current task and then advances it,
 * so the child made by the last generation's advance has not been played: `made` counts it,
 * `played` does not (null before the first generation finishes).
 */
export interface LineageReach {
  made: number;
  played: number | null;
}

export function lineageReach(
  lineage: { id: string; nodes: readonly { tier: number }[] },
  generations: readonly { groups: readonly { lineageId: string; tier: number }[] }[],
): LineageReach {
  const playedTiers = generations.flatMap(({ groups }) =>
    groups.filter((group) => group.lineageId === lineage.id).map((group) => group.tier),
  );
  return {
    made: Math.max(...lineage.nodes.map((node) => node.tier)),
    played: playedTiers.length === 0 ? null : Math.max(...playedTiers),
  };
}

export function currentNode(lineage: Lineage): LineageNode {
  const node = lineage.nodes.find((candidate) => candidate.task.id === lineage.currentId);
  if (node === undefined) throw new Error(`lineage ${lineage.id} has no node ${lineage.currentId}`);
  return node;
}

async function probe(
  lineage: Lineage,
  generation: number,
  options: CurriculumOptions,
): Promise<GroupResult> {
  const node = currentNode(lineage);
  const count = options.probes ?? 8;
  let passes = 0;
  let turns = 0;
  let reward = 0;
  const simulator =
    options.simulatorFor === undefined ? null : await options.simulatorFor(node.task);
  const simulated = simulator === null ? null : { passes: 0, divergentSteps: 0, steps: 0 };
  const origin = (probeIndex: number, mode: RolloutOrigin['mode']): RolloutOrigin => ({
    task: node.task,
    lineageId: lineage.id,
    generation,
    tier: node.tier,
    axis: node.axis ?? 'root',
    probe: probeIndex,
    mode,
  });
  for (let i = 0; i < count; i += 1) {
    const seed = hashSeed(options.seed ?? 0, lineage.id, node.task.id, generation, i);
    const played = await rollout(node.task, options.policy, options.createWorld, seed);
    if (played.evaluation.passed) passes += 1;
    turns += played.turns;
    reward += played.evaluation.reward;
    await options.onRollout?.(played, origin(i, 'executable'));
    if (simulator !== null && simulated !== null) {
      const dreamt = await simulatedRollout(
        node.task,
        options.policy,
        options.createWorld,
        seed,
        simulator,
      );
      if (dreamt.evaluation.passed) simulated.passes += 1;
      simulated.divergentSteps += dreamt.divergentSteps;
      simulated.steps += dreamt.steps.filter((step) => step.exitCode !== null).length;
      await options.onRollout?.(dreamt, origin(i, 'simulated'));
    }
  }
  return {
    lineageId: lineage.id,
    taskId: node.task.id,
    tier: node.tier,
    axis: node.axis ?? 'root',
    passes,
    rollouts: count,
    meanTurns: count === 0 ? 0 : turns / count,
    meanReward: count === 0 ? 0 : reward / count,
    simulated,
  };
}

/** Tries the axes round robin until a mutation passes every gate; records each refusal. */
async function advance(
  lineage: Lineage,
  generation: number,
  options: CurriculumOptions,
): Promise<{ accepted: number; rejected: number }> {
  const parent = currentNode(lineage);
  if (parent.tier >= (options.maxDepth ?? 15)) {
    lineage.capped = true;
    return { accepted: 0, rejected: 0 };
  }
  let rejected = 0;
  for (let attempt = 0; attempt < AXES.length; attempt += 1) {
    const axis = AXES[(lineage.nextAxis + attempt) % AXES.length] ?? 'scenario';
    const childId = `${lineage.id}.t${parent.tier + 1}-${axis}`;
    const outcome = await mutate(axis, parent.task, {
      createWorld: options.createWorld,
      childId,
      random: randomFor(options.seed ?? 0, childId, generation),
      ...(options.oracleRuns === undefined ? {} : { oracleRuns: options.oracleRuns }),
    });
    let report: GateReport | null = null;
    if (outcome.ok)
      report = await runGates(outcome.task, options.createWorld, 0, {}, options.emptyWorld);
    if (!outcome.ok || report === null || !report.accepted) {
      rejected += 1;
      lineage.rejected.push({
        parentId: parent.task.id,
        axis,
        generation,
        reasons: outcome.ok ? (report?.reasons ?? []) : [outcome.reason],
      });
      continue;
    }
    if (!outcome.ok) continue;
    lineage.nodes.push({
      task: outcome.task,
      parentId: parent.task.id,
      axis,
      generation,
      tier: parent.tier + 1,
      description: outcome.description,
      diff: outcome.diff,
    });
    lineage.currentId = outcome.task.id;
    lineage.nextAxis = (lineage.nextAxis + attempt + 1) % AXES.length;
    return { accepted: 1, rejected };
  }
  return { accepted: 0, rejected };
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function isPartial(group: GroupResult): number {
  return group.passes > 0 && group.passes < group.rollouts ? 1 : 0;
}

function summarize(
  generation: number,
  groups: GroupResult[],
  mutations: GenerationStats['mutations'],
): GenerationStats {
  const rollouts = groups.reduce((sum, group) => sum + group.rollouts, 0);
  const passes = groups.reduce((sum, group) => sum + group.passes, 0);
  const byAxis: GenerationStats['byAxis'] = {};
  for (const axis of new Set(groups.map((group) => group.axis))) {
    const mine = groups.filter((group) => group.axis === axis);
    const total = mine.reduce((sum, group) => sum + group.rollouts, 0);
    byAxis[axis] = {
      tasks: mine.length,
      passRate: total === 0 ? 0 : mine.reduce((sum, group) => sum + group.passes, 0) / total,
      meanTurns: mean(mine.map((group) => group.meanTurns)),
      partialGroups: mean(mine.map(isPartial)),
    };
  }
  const simulatedGroups = groups.flatMap((group) =>
    group.simulated === null ? [] : [{ ...group.simulated, rollouts: group.rollouts }],
  );
  const gap: GapStats | null =
    simulatedGroups.length === 0
      ? null
      : {
          passRateSimulated:
            rollouts === 0
              ? 0
              : simulatedGroups.reduce((sum, group) => sum + group.passes, 0) / rollouts,
          passRateExecutable: rollouts === 0 ? 0 : passes / rollouts,
          divergentSteps: simulatedGroups.reduce((sum, group) => sum + group.divergentSteps, 0),
          steps: simulatedGroups.reduce((sum, group) => sum + group.steps, 0),
        };
  return {
    generation,
    tasks: groups.length,
    passRate: rollouts === 0 ? 0 : passes / rollouts,
    partialGroups: mean(groups.map(isPartial)),
    meanTurns: mean(groups.map((group) => group.meanTurns)),
    meanTier: mean(groups.map((group) => group.tier)),
    byAxis,
    mutations,
    gap,
    groups,
  };
}

/**
 * One generation: probe every lineage's current task with B rollouts, then let the scheduler
 * move each lineage (a harder gated child, stay, or back to the parent). Tiers move only on
 * verifier-scored probes. Lineages are mutated in place, so a caller can persist and resume them.
 */
export async function runGeneration(
  lineages: Lineage[],
  generation: number,
  options: CurriculumOptions,
): Promise<GenerationStats> {
  const groups: GroupResult[] = [];
  const mutations = { accepted: 0, rejected: 0 };
  for (const lineage of lineages) {
    const group = await probe(lineage, generation, options);
    groups.push(group);
    const decision = options.scheduler.decide(group);
    if (decision === 'advance') {
      const result = await advance(lineage, generation, options);
      mutations.accepted += result.accepted;
      mutations.rejected += result.rejected;
    } else if (decision === 'retreat') {
      const parentId = currentNode(lineage).parentId;
      if (parentId !== null) lineage.currentId = parentId;
    }
  }
  return summarize(generation, groups, mutations);
}

export interface RunCurriculumOptions extends CurriculumOptions {
  onGeneration?: (stats: GenerationStats) => void | Promise<void>;
  /** Called after every generation with the state to store; resume from it with `resume`. */
  onCheckpoint?: (checkpoint: CurriculumCheckpoint) => void | Promise<void>;
  /** Continue a stored run instead of seeding new lineages (the tasks argument is then ignored). */
  resume?: CurriculumCheckpoint;
  /** Checked between generations: a canceled run stops after the generation in progress. */
  signal?: AbortSignal;
}

/**
 * Seeds lineages from tasks that already passed their gates (or resumes a checkpoint) and runs
 * up to `generations` generations in all.
 */
export async function runCurriculum(
  tasks: Task[],
  generations: number,
  options: RunCurriculumOptions,
): Promise<{ lineages: Lineage[]; generations: GenerationStats[]; completed: number }> {
  // A deep copy, so the caller's checkpoint stays what was stored.
  const lineages: Lineage[] =
    options.resume === undefined
      ? tasks.map(newLineage)
      : CurriculumCheckpoint.parse(structuredClone(options.resume)).lineages;
  const stats: GenerationStats[] = [];
  let completed = options.resume?.generation ?? 0;
  const shared = { ...options, oracleRuns: options.oracleRuns ?? new Map() };
  while (completed < generations && options.signal?.aborted !== true) {
    const result = await runGeneration(lineages, completed + 1, shared);
    completed += 1;
    stats.push(result);
    await options.onGeneration?.(result);
    await options.onCheckpoint?.({ generation: completed, lineages: structuredClone(lineages) });
  }
  return { lineages, generations: stats, completed };
}
