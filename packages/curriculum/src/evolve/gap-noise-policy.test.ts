import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Trajectory } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createReplayWorldModel,
  createRetrievalWorldModel,
  HostNotAllowedError,
} from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutTrajectory } from '../export/rollout-trajectory';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { runGates } from '../tasks/gates';
import { Task } from '../tasks/task';
import { runCurriculum, type RolloutOrigin } from './curriculum';
import { mutate } from './mutators';
import { openAIPolicy } from './openai-policy';
import { scriptedPolicy } from './policy';
import { randomFor } from './random';
import { rollout, simulatedRollout } from './rollout';
import { lineageScheduler } from './schedulers';
import {
  evolvableWorldFactory,
  noiseOf,
  noisyObservation,
  SCRATCH_EVOLVABLE,
} from './world-source';

const createWorld = evolvableWorldFactory([SCRATCH_EVOLVABLE]);
const [lastLine, countLines] = BUILTIN_TASKS.map((input) => Task.parse(input));
if (lastLine === undefined || countLines === undefined) throw new Error('two builtin tasks');
const context = (childId: string) => ({ createWorld, childId, random: randomFor(childId) });

/** An answer-checked task whose answer is the last output (the noise can reach it). */
const tail = Task.parse({
  id: 'scratch-tail',
  goal: 'Show the last line of /data/notes.txt, then submit.',
  world: { id: 'scratch', params: { extra: { '/data/notes.txt': 'alpha\nbravo\ncharlie\n' } } },
  verifier: {
    checks: [{ check: { kind: 'answer-equals', expected: 'charlie\n', normalize: 'exact' } }],
  },
  oracle: ['cat /data/notes.txt', 'echo charlie', 'submit'],
  provenance: { source: 'builtin', trajectory: null, steps: [] },
});

describe('noisier observations', () => {
  it('adds seeded warning lines and nothing else', () => {
    const noisy = noisyObservation('a\nb\nc\n', 0.5, randomFor('x'));
    expect(noisy.split('\n').filter((line) => !line.startsWith('warning: '))).toEqual([
      'a',
      'b',
      'c',
      '',
    ]);
    expect(noisy).toBe(noisyObservation('a\nb\nc\n', 0.5, randomFor('x')));
    expect(noisyObservation('a\nb\n', 0, randomFor('x'))).toBe('a\nb\n');
  });

  it('climbs the noise ladder, every rung gated, and stops at the top with the reason', async () => {
    expect((await runGates(tail, createWorld)).reasons).toEqual([]);
    let task = tail;
    const levels: number[] = [];
    for (let rung = 0; rung < 4; rung += 1) {
      const outcome = await mutate('noise', task, context(`noisy-${rung}`));
      if (!outcome.ok) throw new Error(outcome.reason);
      expect((await runGates(outcome.task, createWorld)).reasons).toEqual([]);
      // Only the world's noise changes: the verifier and oracle are the parent's.
      expect(outcome.task.verifier).toEqual(task.verifier);
      expect(outcome.diff.worldAdded).toEqual({});
      task = outcome.task;
      levels.push(noiseOf(task.world));
    }
    expect(levels).toEqual([0.1, 0.2, 0.35, 0.5]);
    expect(await mutate('noise', task, context('noisy-5'))).toEqual({
      ok: false,
      axis: 'noise',
      reason: 'observations are as noisy as the ladder goes',
    });
  });

  it('costs the scripted policy passes once it copies what it saw', async () => {
    const loud = await top(tail);
    const policy = scriptedPolicy();
    const passes = async (task: Task) => {
      let count = 0;
      for (let seed = 0; seed < 40; seed += 1)
        if ((await rollout(task, policy, createWorld, seed)).evaluation.passed) count += 1;
      return count;
    };
    // Clean: the slips (a skipped step, a stray newline) fail; loud: copying a noisy screen too.
    expect(await passes(tail)).toBe(31);
    expect(await passes(loud)).toBe(24);
    const seen = (await rollout(loud, policy, createWorld, 3)).steps.flatMap((step) =>
      step.seen === null ? [] : [step.seen],
    );
    expect(seen.some((screen) => screen.includes('warning: '))).toBe(true);
  });
});

async function top(task: Task): Promise<Task> {
  let current = task;
  for (let rung = 0; rung < 4; rung += 1) {
    const outcome = await mutate('noise', current, context(`rung-${rung}`));
    if (!outcome.ok) return current;
    current = outcome.task;
  }
  return current;
}

// The context a curriculum gives its simulator: the task's goal, as the stored rollouts carry it.
const SIM_CONTEXT = { domain: 'terminal' as const, task: tail.goal, systemPrompt: null, tools: [] };

async function recorded(task: Task, seeds: number): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for (let seed = 0; seed < seeds; seed += 1) {
    const played = await rollout(task, scriptedPolicy({ slip: 0, sloppy: 0 }), createWorld, seed);
    const origin: RolloutOrigin = {
      task,
      lineageId: task.id,
      generation: 1,
      tier: 0,
      axis: 'root',
      probe: seed,
      mode: 'executable',
    };
    out.push(
      rolloutTrajectory({
        rollout: played,
        origin,
        runId: 'r1',
        policy: 'scripted',
        sim: null,
      }),
    );
  }
  return out;
}

describe('simulated vs executable', () => {
  it('stores a rollout as a trajectory with its task, lineage and reward', async () => {
    const [trajectory] = await recorded(tail, 1);
    expect(trajectory?.externalId).toBe('r1/g1/scratch-tail/p0');
    expect(
      trajectory?.steps.map((step) => [step.action.type, step.observation?.content ?? null]),
    ).toEqual([
      ['command', 'alpha\nbravo\ncharlie\n'],
      ['command', 'charlie\n'],
      ['tool_call', null],
    ]);
    expect(trajectory?.outcome).toEqual({ reward: 1, success: true });
    expect(trajectory?.metadata['curriculum']).toMatchObject({
      lineageId: 'scratch-tail',
      tier: 0,
    });
  });

  it('replay of the same episodes shows no gap; retrieval from another task diverges', async () => {
    const policy = scriptedPolicy({ slip: 0, sloppy: 0 });
    const replay = { model: createReplayWorldModel(await recorded(tail, 2)), context: SIM_CONTEXT };
    const same = await simulatedRollout(tail, policy, createWorld, 7, replay);
    expect(same.divergentSteps).toBe(0);
    expect(same.evaluation.passed).toBe(true);

    const elsewhere = await recorded(countLines, 2);
    const retrieval = {
      model: createRetrievalWorldModel(buildRetrievalIndex(elsewhere)),
      context: SIM_CONTEXT,
    };
    const wrong = await simulatedRollout(tail, policy, createWorld, 7, retrieval);
    const executable = await rollout(tail, policy, createWorld, 7);
    expect(executable.evaluation.passed).toBe(true);
    expect(wrong.divergentSteps).toBe(2);
    // The answer is the simulated last output, which retrieval got wrong.
    expect(wrong.evaluation.passed).toBe(false);
    // Retrieval finds nothing like these commands: a miss, which the steps say, never an empty
    // output the policy would take for the command's own.
    const missed =
      'simulator error: retrieval: no recorded transition is like this action in the dataset';
    expect(wrong.steps.map((step) => step.seen)).toEqual([missed, missed, null]);
    // Each acting step keeps the simulator's answer beside the world's, with its content score
    // (none for a miss: it is not scored).
    expect(
      wrong.steps.map((step) =>
        step.simulated === null
          ? null
          : [step.simulated.predicted, step.simulated.diverged, step.simulated.contentScore],
      ),
    ).toEqual([[missed, true, null], [missed, true, null], null]);
  });

  it('reports the gap per generation when a simulator stands in', async () => {
    const elsewhere = await recorded(countLines, 2);
    const result = await runCurriculum([tail], 2, {
      createWorld,
      policy: scriptedPolicy(),
      scheduler: lineageScheduler(),
      simulatorFor: async () => ({
        model: createRetrievalWorldModel(buildRetrievalIndex(elsewhere)),
        context: SIM_CONTEXT,
      }),
    });
    expect(result.generations.map((stats) => stats.gap)).toEqual([
      // Every step diverges: retrieval misses each (before, a slipped `true`, whose output is
      // empty, counted as matched by the miss's empty text).
      { passRateSimulated: 0, passRateExecutable: 0.75, divergentSteps: 16, steps: 16 },
      { passRateSimulated: 0, passRateExecutable: 0.75, divergentSteps: 16, steps: 16 },
    ]);
  });
});

async function body(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text);
}

describe('a policy behind an OpenAI-compatible endpoint', () => {
  let server: Server;
  let baseUrl: string;
  const requests: unknown[] = [];

  beforeAll(async () => {
    // A stand-in for the remote model: it plays the oracle of the task it is shown, one tool call
    // per turn, counting the tool results it has been sent. The policy code under test is real.
    server = createServer((request, response) => {
      void body(request).then((payload) => {
        requests.push(payload);
        const turns = JSON.stringify(payload).split('"role":"tool"').length - 1;
        const commands = ['cat /data/notes.txt', 'echo charlie'];
        const command = commands[turns];
        const call =
          command === undefined
            ? { id: `c${turns}`, type: 'function', function: { name: 'submit', arguments: '{}' } }
            : {
                id: `c${turns}`,
                type: 'function',
                function: { name: 'bash', arguments: JSON.stringify({ command }) },
              };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            choices: [
              { index: 0, message: { role: 'assistant', content: null, tool_calls: [call] } },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('a TCP address');
    baseUrl = `http://127.0.0.1:${address.port}/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('plays a task over real HTTP with tool calls and passes its verifier', async () => {
    const policy = openAIPolicy({ baseUrl, model: 'stub', fetch });
    const played = await rollout(tail, policy, createWorld, 0);
    expect(played.steps.map((step) => step.action)).toEqual([
      'cat /data/notes.txt',
      'echo charlie',
      'submit',
    ]);
    expect(played.evaluation.passed).toBe(true);
    expect(requests).toHaveLength(3);
    expect(requests[2]).toMatchObject({
      model: 'stub',
      tool_choice: 'auto',
      messages: [
        { role: 'system' },
        { role: 'user' },
        { role: 'assistant', tool_calls: [{ id: 'c0' }] },
        { role: 'tool', tool_call_id: 'c0', content: 'alpha\nbravo\ncharlie\n' },
        { role: 'assistant', tool_calls: [{ id: 'c1' }] },
        { role: 'tool', tool_call_id: 'c1', content: 'charlie\n' },
      ],
    });
  });

  it('names the endpoint and why when nothing answers there', async () => {
    // A port nothing listens on: the connection is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    if (address === null || typeof address === 'string') throw new Error('a TCP address');
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = `http://127.0.0.1:${address.port}/v1`;
    const policy = openAIPolicy({ baseUrl: nowhere, model: 'stub', fetch });
    await expect(rollout(tail, policy, createWorld, 0)).rejects.toThrow(
      `policy endpoint ${nowhere}/chat/completions could not be reached: nothing accepted the connection`,
    );
  });

  it('refuses an endpoint outside the allowlist', () => {
    expect(() => openAIPolicy({ baseUrl: 'http://example.org/v1', model: 'm', fetch })).toThrow(
      HostNotAllowedError,
    );
  });
});
