import type { Action, Trajectory } from '@terrarium/schema';
import type { WorldModel } from '@terrarium/worlds';
import { z } from 'zod';
import { isNotACommand } from './terminal/not-a-command';
import { lackedOption } from './terminal/option-refusal';
import { WorkspaceReconstruction } from './terminal/reconstruct';
import { parseLine } from './terminal/shell-words';
import { buildTerminalWorld, programsOf } from './terminal/terminal-world';
import type {
  BuildTerminalWorldOptions,
  TerminalWorld,
  Workspace,
  WorldSnapshot,
  WorldStepResult,
} from './world';

export const Outcome = z.enum(['exact', 'fallback', 'mismatch']);
export type Outcome = z.infer<typeof Outcome>;

export const Counts = z.object({
  transitions: z.number().int(),
  exact: z.number().int(),
  fallback: z.number().int(),
  mismatch: z.number().int(),
});
export type Counts = z.infer<typeof Counts>;

export const TransitionCheck = z.object({
  step: z.number().int(),
  command: z.string(),
  family: z.string(),
  outcome: Outcome,
  provenance: z.enum(['executed', 'recorded', 'world-model']),
  /**
   * Why a fallback: the world's reason for not running it (`unsupported-command:df`,
   * `command-not-found`, `not-a-shell-command`), or `unsupported-option:PROGRAM OPTION` for an option
   * the world's shell refused that the real one ran. Null for a mismatch (and a fallback whose
   * world gave no reason).
   */
  reason: z.string().nullable(),
  expected: z.string(),
  actual: z.string(),
});
export type TransitionCheck = z.infer<typeof TransitionCheck>;

export const TrajectorySufficiency = Counts.extend({
  id: z.string(),
  /** Pool the workspace came from (InterCode's file-system image, or the trajectory itself). */
  image: z.string(),
  /** Only the transitions that did not reproduce exactly, with both texts, for diffing. */
  mismatches: z.array(TransitionCheck),
});
export type TrajectorySufficiency = z.infer<typeof TrajectorySufficiency>;

export const SufficiencyReport = Counts.extend({
  dataset: z.string(),
  worlds: z.number().int(),
  /** Harness control steps left out of `transitions` (InterCode's `submit`, its parse errors). */
  skipped: z.number().int(),
  byCommand: z.record(z.string(), Counts),
  trajectories: z.array(TrajectorySufficiency),
});
export type SufficiencyReport = z.infer<typeof SufficiencyReport>;

export interface SufficiencyOptions {
  dataset: string;
  /**
   * Pool episodes that started from the same image (default true): each adds what it saw of the
   * initial workspace, as the real container was the same for all of them.
   */
  pool?: boolean;
  fallback?: WorldModel;
  /**
   * Awaited before each replayed command: a caller on a shared thread (a server) lets its other
   * work run there, since one world's replay can take a second.
   */
  pause?: () => Promise<void>;
}

function zero(): Counts {
  return { transitions: 0, exact: 0, fallback: 0, mismatch: 0 };
}

function add(counts: Counts, outcome: Outcome): void {
  counts.transitions++;
  counts[outcome]++;
}

/** The image a trajectory started from: InterCode names its file system in `dataset`. */
export function imageOf(trajectory: Trajectory): string {
  const dataset = trajectory.metadata['dataset'];
  return typeof dataset === 'string' ? dataset : trajectory.externalId;
}

/**
 * The shell line of a recorded action, or null for a harness control action. InterCode's ReAct
 * runs wrap commands as `execute[…]` and end with `submit`, which ends the episode and is not a
 * shell command: it is left out of the counts. So is SWE-agent's, with the flag EnIGMA's takes
 * (`submit 'flag{…}'`, answered `Wrong flag!` or with the flag by the harness, never by a shell):
 * walk 52 found 16 of them counted as fallbacks.
 */
export function shellCommandOf(recorded: string): string | null {
  const trimmed = recorded.trim();
  if (/^submit(?:\s|$)/.test(trimmed)) return null;
  // Up to the last `]`: a ReAct model sometimes writes on after the action ("…]\nObs"), and the
  // harness runs the bracket's content all the same.
  const wrapped = /^execute\[([\s\S]*)\][^\]]*$/.exec(trimmed);
  return wrapped?.[1] ?? recorded;
}

/**
 * Replies of the benchmark harness itself, not of the shell: InterCode's ReAct runner answers an
 * action it could not parse with this text and never runs it.
 */
export function isHarnessReply(observation: string): boolean {
  return observation.startsWith(
    'Error executing query: Your last `execute` action did not contain',
  );
}

/** The harness a trajectory was recorded through, so the replay sees what the agent saw. */
export function transportFor(
  trajectory: Trajectory,
): NonNullable<BuildTerminalWorldOptions['transport']> {
  // SWE-agent sessions are persistent shells; how they end outputs (newline kept or not, tty
  // columns) differs by configuration and is not emulated.
  return trajectory.sourceFormat === 'intercode' ? 'intercode' : 'shell';
}

/** The family of actions that are no command (prose, blank lines): not one per first word. */
export const NOT_A_COMMAND = '(not a command)';

/** The command family a line counts under: its first program, or `NOT_A_COMMAND`. */
export function familyOf(command: string): string {
  return isNotACommand(command) ? NOT_A_COMMAND : (programsOf(command)[0] ?? '');
}

/**
 * How a replayed transition counts, and why when it is a fallback. A line the world ran counts as a
 * fallback too when its shell refused an option the real shell ran (`uniq -w`, `tar --transform`,
 * `find -mmin`): that is just-bash lacking the option, not the world differing, and the real
 * answer could not come from it. Told here, where the recorded answer is at hand (a refusal it
 * shows too is the world right: `wc -u` is no GNU option either), while the world's step stays the
 * shell's: a task's oracle must stay executable, and an oracle's typo (`awk -f[/:]`) refused in
 * other words still leaves the same state behind. `stageMessages` is what the line's programs
 * wrote to stderr on their own (see `stageMessagesOf`), where a refusal a later pipeline stage
 * consumed is still whole.
 */
export function classify(
  stepped: Pick<WorldStepResult, 'provenance' | 'detail'>,
  expected: string,
  actual: string,
  command: string,
  stageMessages: string | null = null,
): { outcome: Outcome; reason: string | null } {
  if (stepped.provenance !== 'executed') {
    const reason = stepped.detail?.['reason'];
    return { outcome: 'fallback', reason: typeof reason === 'string' ? reason : null };
  }
  if (expected === actual) return { outcome: 'exact', reason: null };
  const lacked =
    lackedOption(actual, expected, command) ??
    (stageMessages === null ? null : lackedOption(stageMessages, expected, command));
  if (lacked !== null)
    return { outcome: 'fallback', reason: `unsupported-option:${lacked.program} ${lacked.option}` };
  return { outcome: 'mismatch', reason: null };
}

/** Where a probe writes the stderr of a line's programs: a root file no recording names. */
const STAGE_MESSAGES = '/.terrarium-stage-messages';

/**
 * What the programs of a pipeline wrote to stderr, apart from their output, or null for a line
 * with no pipe. The world's shell (just-bash, after its `exec 2>&1`) sends a stage's messages
 * down the pipe, so in `sort | uniq -D -w 32 | awk '{print $1}'` awk turns uniq's refusal into
 * `uniq:` and no refusal is left to see (walk 52 found it counted a mismatch). The world goes
 * back to where it was before the line, runs it again with stderr sent to a file (just-bash
 * honours that for every stage), and returns to where the line left it: the replay goes on as if
 * no probe had run. In place rather than in a fork, which would start a shell of its own.
 */
async function stageMessagesOf(
  world: TerminalWorld,
  before: WorldSnapshot | null,
  step: Extract<Action, { type: 'command' }>,
): Promise<string | null> {
  if (before === null || !parseLine(step.command).operators.includes('|')) return null;
  const after = world.snapshot();
  world.restore(before);
  try {
    await world.step({ ...step, command: `exec 2>${STAGE_MESSAGES}; ${step.command}` });
    return world.readFile(STAGE_MESSAGES);
  } finally {
    world.restore(after);
  }
}

/**
 * Replays each trajectory's recorded actions in its reconstructed world and counts how many
 * recorded observations come back byte for byte (`exact`), how many the shell could not run
 * (`fallback`: a program it does not have, which a fallback answered, or an option of one it lacks,
 * which it refused), and how many it ran with a different output (`mismatch`).
 */
export async function measureSufficiency(
  trajectories: readonly Trajectory[],
  options: SufficiencyOptions,
): Promise<SufficiencyReport> {
  const replay = replaySufficiency(trajectories, options);
  for (;;) {
    const next = await replay.next();
    if (next.done === true) return next.value;
  }
}

/**
 * `measureSufficiency` one world at a time: yields each trajectory's result as its replay ends
 * and returns the whole report. A caller can show progress, stop early, or let other work run
 * between worlds (a dataset of thousands takes seconds of one thread).
 */
export async function* replaySufficiency(
  trajectories: readonly Trajectory[],
  options: SufficiencyOptions,
): AsyncGenerator<TrajectorySufficiency, SufficiencyReport, undefined> {
  const pool = options.pool ?? true;
  const workspaces = new Map<string, Workspace>();
  if (pool) {
    const byImage = new Map<string, WorkspaceReconstruction>();
    for (const trajectory of trajectories) {
      const image = imageOf(trajectory);
      const reconstruction = byImage.get(image) ?? new WorkspaceReconstruction();
      byImage.set(image, reconstruction.add(trajectory));
    }
    for (const [image, reconstruction] of byImage)
      workspaces.set(image, reconstruction.workspace());
  }
  const report: SufficiencyReport = {
    dataset: options.dataset,
    worlds: 0,
    skipped: 0,
    ...zero(),
    byCommand: {},
    trajectories: [],
  };
  for (const trajectory of trajectories) {
    const image = pool ? imageOf(trajectory) : trajectory.externalId;
    const world = buildTerminalWorld(trajectory, {
      ...(pool ? { workspace: workspaces.get(image) } : {}),
      ...(options.fallback === undefined ? {} : { fallback: options.fallback }),
      transport: transportFor(trajectory),
    });
    report.worlds++;
    const result: TrajectorySufficiency = {
      id: trajectory.externalId,
      image,
      ...zero(),
      mismatches: [],
    };
    for (const step of trajectory.steps) {
      if (step.action.type !== 'command' || step.observation === null) continue;
      const command = shellCommandOf(step.action.command);
      if (command === null || isHarnessReply(step.observation.content)) {
        report.skipped++;
        continue;
      }
      if (options.pause !== undefined) await options.pause();
      const action = { ...step.action, command };
      // A snapshot is cheap, yet most lines have no pipe to probe.
      const before = command.includes('|') ? world.snapshot() : null;
      const stepped = await world.step(action);
      const expected = step.observation.content;
      const actual = stepped.observation.content;
      let { outcome, reason } = classify(stepped, expected, actual, command);
      // Only a line that would count as a mismatch is run again, to look for a refusal in it.
      if (outcome === 'mismatch')
        ({ outcome, reason } = classify(
          stepped,
          expected,
          actual,
          command,
          await stageMessagesOf(world, before, action),
        ));
      const family = familyOf(command);
      add(result, outcome);
      add(report, outcome);
      const familyCounts = report.byCommand[family] ?? zero();
      add(familyCounts, outcome);
      report.byCommand[family] = familyCounts;
      if (outcome !== 'exact') {
        result.mismatches.push({
          step: step.index,
          command,
          family,
          outcome,
          provenance: stepped.provenance,
          reason,
          expected,
          actual,
        });
      }
    }
    report.trajectories.push(result);
    yield result;
  }
  return report;
}

export interface TrimOptions {
  /** Mismatch and fallback records kept over the whole report (counts stay complete). */
  maxMismatches: number;
  /**
   * Records kept per command family at most, so that a family a page filters on keeps some
   * though a large one comes first (InterCode's `find` fills any cap alone).
   */
  perFamily?: number;
  /** Only records of this outcome. */
  outcome?: 'mismatch' | 'fallback';
  /** Longest expected/actual text kept; longer ones are cut with a marker. */
  maxChars: number;
}

function cut(text: string, maxChars: number): string {
  return text.length <= maxChars
    ? text
    : `${text.slice(0, maxChars)}\n… (${text.length - maxChars} more characters)`;
}

/** A report small enough to send: the counts whole, the first mismatches with bounded texts. */
export function trimReport(report: SufficiencyReport, options: TrimOptions): SufficiencyReport {
  let left = options.maxMismatches;
  const perFamily = new Map<string, number>();
  const keep = (check: TransitionCheck): boolean => {
    if (left <= 0 || (options.outcome !== undefined && check.outcome !== options.outcome))
      return false;
    const inFamily = perFamily.get(check.family) ?? 0;
    if (options.perFamily !== undefined && inFamily >= options.perFamily) return false;
    perFamily.set(check.family, inFamily + 1);
    left -= 1;
    return true;
  };
  return {
    ...report,
    trajectories: report.trajectories.map((trajectory) => {
      const kept = trajectory.mismatches.filter(keep);
      return {
        ...trajectory,
        mismatches: kept.map((check) => ({
          ...check,
          expected: cut(check.expected, options.maxChars),
          actual: cut(check.actual, options.maxChars),
        })),
      };
    }),
  };
}
