import type { WorldStepResult } from '@terrarium/executable-worlds';
import { answerOf, applyMove, moveFromSolution, startEpisode } from '../tasks/episode';
import type { WorldFactory } from '../tasks/gates';
import type { SolutionAction, Task, WeightedCheck } from '../tasks/task';
import { isTerminalWorld } from '../worlds/world-kinds';

export interface OracleRun {
  answer: string;
  /** The last shell action's result (null when the oracle ran no action). */
  last: WorldStepResult | null;
  /** A final file's content (undefined when missing or not a terminal world). */
  file(path: string): string | undefined;
  /** Final files of a terminal world (path → content); empty for other kinds. Read on first use. */
  files(): Map<string, string>;
  /** Files before the oracle ran (after a harmless `true`, as the task generator does). */
  before(): Promise<Map<string, string>>;
}

/** Runs a task's oracle in its (possibly mutated) world, to re-derive what the verifier expects. */
export async function runOracle(
  task: Task,
  createWorld: WorldFactory,
  oracle: SolutionAction[] = task.oracle,
): Promise<OracleRun> {
  const world = createWorld(task.world, 0);
  await world.reset();
  // A copy-on-write fork, stepped and read only if a mutator asks for the files before: reading
  // a reconstructed workspace whole is most of what an oracle run costs.
  const probe = world.fork();
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
  let files: Map<string, string> | null = null;
  let before: Promise<Map<string, string>> | null = null;
  return {
    answer: answerOf(episode),
    last,
    file: (path) => (isTerminalWorld(world) ? (world.readFile(path) ?? undefined) : undefined),
    files: () => (files ??= snapshotFiles(world)),
    before: () =>
      (before ??= probe
        .step({ type: 'command', command: 'true', interpreter: 'bash' })
        .then(() => snapshotFiles(probe))),
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
      const content = run.file(check.path);
      return content === undefined ? weighted : { ...weighted, check: { ...check, content } };
    }
    return weighted;
  });
}
