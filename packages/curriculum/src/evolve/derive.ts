import type { WorldStepResult } from '@terrarium/executable-worlds';
import { answerOf, applyMove, moveFromSolution, startEpisode } from '../tasks/episode';
import type { WorldFactory } from '../tasks/gates';
import type { SolutionAction, Task, WeightedCheck } from '../tasks/task';
import { isTerminalWorld } from '../worlds/world-kinds';

export interface OracleRun {
  answer: string;
  /** The last shell action's result (null when the oracle ran no action). */
  last: WorldStepResult | null;
  /** Final files of a terminal world (path → content); empty for other kinds. */
  files: Map<string, string>;
  /** Files before the oracle ran (after a harmless `true`, as the task generator does). */
  before: Map<string, string>;
}

/** Runs a task's oracle in its (possibly mutated) world, to re-derive what the verifier expects. */
export async function runOracle(
  task: Task,
  createWorld: WorldFactory,
  oracle: SolutionAction[] = task.oracle,
): Promise<OracleRun> {
  const world = createWorld(task.world, 0);
  await world.reset();
  const probe = world.fork();
  await probe.step({ type: 'command', command: 'true', interpreter: 'bash' });
  const episode = startEpisode(world);
  let last: WorldStepResult | null = null;
  for (const action of oracle) {
    const result = await applyMove(episode, moveFromSolution(world, action));
    if (result !== null) last = result;
    if (episode.submitted) break;
  }
  const snapshotFiles = (target: typeof world): Map<string, string> => {
    const files = new Map<string, string>();
    if (!isTerminalWorld(target)) return files;
    for (const path of target.files()) files.set(path, target.readFile(path) ?? '');
    return files;
  };
  return {
    answer: answerOf(episode),
    last,
    files: snapshotFiles(world),
    before: snapshotFiles(probe),
  };
}

/**
 * The same checks with their expected values taken from an oracle run in the mutated world: an
 * answer check expects the oracle's answer, a file-equals check the oracle's file. Kinds and
 * weights stay, so a child verifier checks what its parent did, on the child's world.
 */
export function rederiveChecks(checks: WeightedCheck[], run: OracleRun): WeightedCheck[] {
  return checks.map((weighted) => {
    const { check } = weighted;
    if (check.kind === 'answer-equals')
      return { ...weighted, check: { ...check, expected: run.answer } };
    if (check.kind === 'file-equals') {
      const content = run.files.get(check.path);
      return content === undefined ? weighted : { ...weighted, check: { ...check, content } };
    }
    return weighted;
  });
}
