import type { WorldFactory } from '../tasks/gates';
import { Task, type SolutionAction, type Verifier, type WeightedCheck } from '../tasks/task';
import { rederiveChecks, runOracle, type OracleRun } from './derive';
import { pick } from './random';
import { NOISE_LEVELS, noiseOf, overlayOf, withNoise, withOverlay } from './world-source';

/**
 * The named directions a task gets harder in: Environment Evolution's three axes, a stricter
 * verifier, and noisier observations (last, so adding it left the older axes' round robin as it was).
 */
export const AXES = ['execution-length', 'scenario', 'skill', 'verifier', 'noise'] as const;
export type Axis = (typeof AXES)[number];

export interface MutationDiff {
  goal: { before: string; after: string };
  /** Files the mutation added to the world (path → content). */
  worldAdded: Record<string, string>;
  oracle: { before: SolutionAction[]; after: SolutionAction[] };
  verifier: { before: Verifier; after: Verifier };
}

export type MutationOutcome =
  | { ok: true; axis: Axis; task: Task; description: string; diff: MutationDiff }
  | { ok: false; axis: Axis; reason: string };

export interface MutationContext {
  createWorld: WorldFactory;
  childId: string;
  random: () => number;
  /**
   * Oracle runs by (world, oracle), kept for a run: a child's run, made to re-derive its
   * verifier, is the parent's run when the child is mutated in turn.
   */
  oracleRuns?: Map<string, Promise<OracleRun>>;
}

function oracleRunOf(task: Task, context: MutationContext): Promise<OracleRun> {
  const key = JSON.stringify([task.world, task.oracle]);
  const known = context.oracleRuns?.get(key);
  if (known !== undefined) return known;
  const run = runOracle(task, context.createWorld);
  context.oracleRuns?.set(key, run);
  return run;
}

type Mutator = (task: Task, context: MutationContext) => Promise<MutationOutcome>;

const WORDS = ['amber', 'basil', 'cedar', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo'];
const SYSTEM_DIRS = /^\/(bin|usr|dev|proc|etc|sys|lib|lib64|sbin|tmp)(\/|$)/;

function isSubmit(action: SolutionAction): boolean {
  return typeof action === 'string' ? /^submit\b/.test(action.trim()) : action.tool === 'submit';
}

/** The oracle's acting part and its closing submit (if any). */
function splitOracle(oracle: SolutionAction[]): { body: SolutionAction[]; tail: SolutionAction[] } {
  const end = oracle.findIndex(isSubmit);
  return end < 0
    ? { body: oracle, tail: [] }
    : { body: oracle.slice(0, end), tail: oracle.slice(end) };
}

function submitsLiteral(tail: SolutionAction[]): boolean {
  const [first] = tail;
  if (first === undefined) return false;
  if (typeof first === 'string') return first.trim() !== 'submit';
  return typeof first.arguments['answer'] === 'string';
}

async function child(
  task: Task,
  context: MutationContext,
  axis: Axis,
  description: string,
  changes: {
    goal: string;
    oracle: SolutionAction[];
    added?: Record<string, string>;
    noise?: number;
  },
  checksFor: (run: OracleRun) => WeightedCheck[] | string | Promise<WeightedCheck[] | string>,
): Promise<MutationOutcome> {
  const overlaid =
    changes.added === undefined ? task.world : withOverlay(task.world, changes.added);
  const world = changes.noise === undefined ? overlaid : withNoise(overlaid, changes.noise);
  const draft = Task.parse({
    ...task,
    id: context.childId,
    goal: changes.goal,
    world,
    oracle: changes.oracle,
  });
  const run = await oracleRunOf(draft, context);
  if (run.last !== null && run.last.provenance !== 'executed')
    return {
      ok: false,
      axis,
      reason: `the world cannot run the oracle's last action (${run.last.provenance})`,
    };
  const checks = await checksFor(run);
  if (typeof checks === 'string') return { ok: false, axis, reason: checks };
  const verifier = { ...task.verifier, checks };
  const mutated = Task.parse({
    ...draft,
    verifier,
    maxSteps: Math.max(task.maxSteps, changes.oracle.length * 3),
    provenance: { ...task.provenance, note: `${axis} mutation of ${task.id}: ${description}` },
  });
  return {
    ok: true,
    axis,
    task: mutated,
    description,
    diff: {
      goal: { before: task.goal, after: mutated.goal },
      worldAdded: changes.added ?? {},
      oracle: { before: task.oracle, after: mutated.oracle },
      verifier: { before: task.verifier, after: verifier },
    },
  };
}

/** One more step: write a token into a new file before the rest of the task. */
const executionLength: Mutator = async (task, context) => {
  const taken = task.verifier.checks.filter(
    ({ check }) => 'path' in check && check.path.startsWith('/tmp/step-'),
  ).length;
  const path = `/tmp/step-${taken + 1}.txt`;
  const token = `${pick(context.random, WORDS)}-${Math.floor(context.random() * 900) + 100}`;
  return child(
    task,
    context,
    'execution-length',
    `one more step: write ${token} into ${path}`,
    {
      goal: `${task.goal}\nFirst, write the line ${token} into ${path}.`,
      oracle: [`echo ${token} > ${path}`, ...task.oracle],
    },
    (run) => [
      ...rederiveChecks(task.verifier.checks, run),
      { weight: 1, check: { kind: 'file-equals', path, content: `${token}\n` } },
    ],
  );
};

/** More state: distractor files next to the files the world already has. */
const scenario: Mutator = async (task, context) => {
  const base = await oracleRunOf(task, context);
  const dirs = [
    ...new Set(
      [...(await base.before()).keys()]
        .filter((path) => !SYSTEM_DIRS.test(path))
        .map((path) => path.slice(0, path.lastIndexOf('/')) || '/'),
    ),
  ].toSorted();
  const existing = Object.keys(overlayOf(task.world)).length;
  const added: Record<string, string> = {};
  for (let i = 0; i < 2; i += 1) {
    const dir = dirs.length > 0 ? pick(context.random, dirs) : '/';
    const name = `${pick(context.random, WORDS)}-${existing + i + 1}.txt`;
    const lines = Array.from({ length: 1 + Math.floor(context.random() * 3) }, () =>
      pick(context.random, WORDS),
    );
    added[`${dir === '/' ? '' : dir}/${name}`] = `${lines.join('\n')}\n`;
  }
  return child(
    task,
    context,
    'scenario',
    `distractors: ${Object.keys(added).join(', ')}`,
    { goal: task.goal, oracle: task.oracle, added },
    (run) => rederiveChecks(task.verifier.checks, run),
  );
};

/** Command families from common to rare; each is piped onto the answer once. */
const SKILLS = [
  { pipe: "tr 'a-z' 'A-Z'", goal: 'in upper case' },
  { pipe: 'rev', goal: 'with every line reversed character by character' },
  { pipe: 'tac', goal: 'with its lines in reverse order' },
  { pipe: `awk '{print NR ": " $0}'`, goal: 'with each line prefixed by its number and ": "' },
] as const;

/** A rarer skill: the answer must come out through a command family the task did not need. */
const skill: Mutator = async (task, context) => {
  const { body, tail } = splitOracle(task.oracle);
  const last = body.at(-1);
  if (!task.verifier.checks.some(({ check }) => check.kind === 'answer-equals'))
    return { ok: false, axis: 'skill', reason: 'the verifier does not check the answer' };
  if (typeof last !== 'string' || submitsLiteral(tail))
    return { ok: false, axis: 'skill', reason: 'the answer is not the output of a shell command' };
  const next = SKILLS.find((candidate) => !last.includes(candidate.pipe));
  if (next === undefined)
    return { ok: false, axis: 'skill', reason: 'every skill of the ladder is used' };
  const before = await oracleRunOf(task, context);
  const command = `{ ${last.trim().replace(/;+$/, '')}; } | ${next.pipe}`;
  return child(
    task,
    context,
    'skill',
    `answer piped through ${next.pipe}`,
    {
      goal: `${task.goal}\nGive the final output ${next.goal}.`,
      oracle: [...body.slice(0, -1), command, ...tail],
    },
    (run) => {
      if (run.last?.exitCode !== 0)
        return `the world cannot run \`${next.pipe}\` (exit ${String(run.last?.exitCode)})`;
      if (run.answer === before.answer) return `\`${next.pipe}\` leaves the answer unchanged`;
      return rederiveChecks(task.verifier.checks, run);
    },
  );
};

/** A stricter verifier: exact answers, then files the task must leave alone. */
const stricter: Mutator = async (task, context) => {
  const lenient = task.verifier.checks.findIndex(
    ({ check }) => check.kind === 'answer-equals' && check.normalize !== 'exact',
  );
  if (lenient >= 0) {
    return child(
      task,
      context,
      'verifier',
      'the answer must match exactly (no whitespace slack)',
      {
        goal: `${task.goal}\nThe answer must match exactly, whitespace included.`,
        oracle: task.oracle,
      },
      (run) =>
        rederiveChecks(task.verifier.checks, run).map((weighted, index) =>
          index === lenient && weighted.check.kind === 'answer-equals'
            ? { ...weighted, check: { ...weighted.check, normalize: 'exact' as const } }
            : weighted,
        ),
    );
  }
  const checked = new Set(
    task.verifier.checks.flatMap(({ check }) => ('path' in check ? [check.path] : [])),
  );
  return child(
    task,
    context,
    'verifier',
    'other files must stay as they were',
    { goal: `${task.goal}\nLeave every other file as it was.`, oracle: task.oracle },
    async (run) => {
      const before = await run.before();
      const untouched = [...before]
        .filter(
          ([path, content]) =>
            !SYSTEM_DIRS.test(path) && !checked.has(path) && run.file(path) === content,
        )
        .slice(0, 3);
      if (untouched.length === 0) return 'no file is left to protect';
      return [
        ...rederiveChecks(task.verifier.checks, run),
        ...untouched.map(([path, content]) => ({
          weight: 1,
          check: { kind: 'file-equals' as const, path, content },
        })),
      ];
    },
  );
};

/**
 * Noisier observations: what the policy sees gets spurious log lines at the next level of the
 * ladder. The world's state and outputs, hence the verifier and the gates, are those of the parent:
 * only a policy that trusts the screen pays for the noise.
 */
const noise: Mutator = async (task, context) => {
  const level = NOISE_LEVELS.find((candidate) => candidate > noiseOf(task.world));
  if (level === undefined)
    return { ok: false, axis: 'noise', reason: 'observations are as noisy as the ladder goes' };
  return child(
    task,
    context,
    'noise',
    `noisier observations: a spurious line after ${Math.round(level * 100)}% of the lines`,
    { goal: task.goal, oracle: task.oracle, noise: level },
    (run) => rederiveChecks(task.verifier.checks, run),
  );
};

export const MUTATORS: Record<Axis, Mutator> = {
  'execution-length': executionLength,
  scenario,
  skill,
  verifier: stricter,
  noise,
};

export function mutate(axis: Axis, task: Task, context: MutationContext): Promise<MutationOutcome> {
  return MUTATORS[axis](task, context);
}
