import { seededRandom } from '@terrarium/executable-worlds';
import { moveFromSolution, type AgentMove } from '../tasks/episode';
import type { Task } from '../tasks/task';
import type { World } from '@terrarium/executable-worlds';
import { noiseOf } from './world-source';

/** One episode of a policy: given the last observation, the next move. */
export interface PolicyEpisode {
  next(observation: string): Promise<AgentMove>;
}

/** Plays tasks. An LLM or ONNX policy implements the same two calls. */
export interface Policy {
  readonly name: string;
  start(task: Task, world: World, seed: number): PolicyEpisode;
}

export interface ScriptedPolicyOptions {
  /** Chance that the policy skips a step (does `true` instead). */
  slip: number;
  /** Chance of a skip on a step that uses a program outside `familiar`. */
  rareSlip: number;
  /** Chance that it submits the last output with a stray trailing newline. */
  sloppy: number;
  /**
   * On a task with noisy observations, the chance that it submits what it saw on the screen
   * instead of letting the last output stand (noise it copies fails an answer check).
   */
  readsScreen: number;
  familiar: readonly string[];
}

export const DEFAULT_SCRIPTED: ScriptedPolicyOptions = {
  slip: 0.03,
  rareSlip: 0.3,
  sloppy: 0.15,
  readsScreen: 0.5,
  familiar: [
    'cat',
    'cd',
    'cp',
    'echo',
    'find',
    'grep',
    'head',
    'ls',
    'mkdir',
    'mv',
    'pwd',
    'rm',
    'sort',
    'tail',
    'touch',
    'true',
    'wc',
  ],
};

/** Programs a shell line runs: the first word of each pipeline / list segment. */
export function programsIn(line: string): string[] {
  return line
    .split(/\|\||&&|[|;&(){}]/)
    .map((segment) => segment.trim().split(/\s+/)[0] ?? '')
    .filter((word) => /^[A-Za-z_][\w.-]*$/.test(word));
}

/**
 * A baseline that needs no model: it knows the task's reference solution and replays it, making
 * seeded mistakes at fixed rates: it skips steps, more often steps that use unfamiliar programs,
 * and sometimes submits with stray whitespace; on noisy screens it sometimes copies what it saw.
 * So its pass rate falls as tasks get longer, use rarer commands, get a stricter verifier or
 * noisier observations, which is what a curriculum needs to show movement.
 */
export function scriptedPolicy(options: Partial<ScriptedPolicyOptions> = {}): Policy {
  const settings = { ...DEFAULT_SCRIPTED, ...options };
  const familiar = new Set(settings.familiar);
  return {
    name: 'scripted',
    start(task, world, seed) {
      const random = seededRandom(seed);
      const noisy = noiseOf(task.world) > 0;
      let index = 0;
      return {
        async next(observation) {
          const action = task.oracle[index];
          index += 1;
          if (action === undefined) return { kind: 'submit', answer: null };
          const move = moveFromSolution(world, action);
          if (move.kind === 'submit') {
            if (move.answer === null && random() < settings.sloppy)
              return { kind: 'submit', answer: `${observation}\n` };
            // Drawn only on noisy tasks, so runs on the other axes keep their seeds' outcomes.
            if (move.answer === null && noisy && random() < settings.readsScreen)
              return { kind: 'submit', answer: observation };
            return move;
          }
          const line = typeof action === 'string' ? action : '';
          const rare = programsIn(line).some((program) => !familiar.has(program));
          if (random() < (rare ? settings.rareSlip : settings.slip))
            return moveFromSolution(world, 'true');
          return move;
        },
      };
    },
  };
}
