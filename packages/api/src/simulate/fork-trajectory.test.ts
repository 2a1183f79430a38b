import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { Action, Step, TrajectoryDetail } from '@terrarium/schema';
import type { Transition, WorldModel } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { TAU2_RETAIL } from '../testing/sample-files';
import { findDataset, findTrajectory } from './find-trajectory';
import { forkTrajectory, type ForkEvent } from './fork-trajectory';
import { SimulatorError } from './sim-spec';
import { readPromptFolder } from '../bench/prompt-folder-files';
import { startRecordingEndpoint } from '../bench/recording-endpoint.testkit';
import { promptFilesHash, promptFilesOf } from '../bench/run-prompts';

// The first tau2 retail simulation: 14 steps, tool calls at steps 4, 5, 6 and 11 (0-based).
const SIMULATION = '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae';

const EDITED: Action = {
  type: 'tool_call',
  name: 'find_user_id_by_email',
  arguments: { email: 'mei.kovacs8020@example.com' },
  callId: null,
};

async function storedSteps(store: Store, trajectoryId: string): Promise<Step[]> {
  const window = await store.getSteps(trajectoryId, 0, 200);
  return window.steps;
}

/** A simulator that records what it was asked and answers with the history's length. */
function recordingSimulator(): WorldModel & { seen: { history: Transition[]; action: Action }[] } {
  const seen: { history: Transition[]; action: Action }[] = [];
  return {
    id: 'recording',
    seen,
    predict(_context, history, action) {
      seen.push({ history, action });
      return Promise.resolve({
        observation: { kind: 'text', content: `after ${history.length}`, callId: null },
        usage: { inputTokens: 3, outputTokens: 2 },
        latencyMs: 1.5,
        provenance: { backend: 'recording', cache: null },
      });
    },
  };
}

describe('forkTrajectory', () => {
  let store: Store;
  let parent: TrajectoryDetail;
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    parent = await findTrajectory(store, await findDataset(store, 'retail'), SIMULATION);
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it('edits a tool call, simulates it with retrieval and continues to the end', async () => {
    const progress: string[] = [];
    const result = await forkTrajectory(
      store,
      { trajectoryId: parent.id, step: 4, action: EDITED, sim: 'retrieval' },
      { onProgress: (done, total) => progress.push(`${done}/${total}`) },
    );
    // 4 real steps, the edited one, and the 9 after it: the parent's 14.
    expect(result.steps).toBe(14);
    // The edited call and the 3 later tool calls (steps 5, 6 and 11); messages are carried over.
    expect(result.simulated).toBe(4);
    expect(result.failed).toBe(0);
    expect(progress).toEqual(['1/4', '2/4', '3/4', '4/4']);
    expect(result.datasetName).toBe('retail-forks');
    expect(result.externalId).toMatch(/^55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae~fork@5~[0-9a-f]{8}$/);

    const detail = await store.getTrajectory(result.trajectoryId);
    expect(detail?.datasetId).toBe(result.datasetId);
    expect(detail?.stepCount).toBe(14);
    expect(detail?.outcome).toEqual({ reward: null, success: null });
    expect(detail?.metadata['fork']).toEqual({
      parentDataset: { id: parent.datasetId, name: 'retail' },
      parentTrajectory: { id: parent.id, externalId: SIMULATION },
      step: 4,
      sim: 'retrieval',
      originalAction: {
        type: 'tool_call',
        name: 'find_user_id_by_email',
        arguments: { email: 'isabella.lopez3271@example.com' },
        callId: 'call_2xzbrH6DkKxcu4GnAB2Rdipb',
      },
      editedAction: { ...EDITED, callId: 'call_2xzbrH6DkKxcu4GnAB2Rdipb' },
      continueSteps: 9,
      promptsHash: null,
    });

    const steps = await storedSteps(store, result.trajectoryId);
    const real = await storedSteps(store, parent.id);
    expect(steps.map((step) => step.index)).toEqual([...Array(14).keys()]);
    expect(steps.slice(0, 4)).toEqual(real.slice(0, 4));
    const edited = steps[4];
    expect(edited?.action).toEqual({ ...EDITED, callId: 'call_2xzbrH6DkKxcu4GnAB2Rdipb' });
    expect(edited?.metadata['simulated']).toBe(true);
    expect(edited?.metadata['edited']).toBe(true);
    expect(edited?.metadata['provenance']).toEqual({
      backend: 'retrieval',
      cache: null,
      model: null,
    });
    expect(edited?.metadata['latencyMs']).toBeTypeOf('number');
    expect(edited?.observation?.callId).toBe('call_2xzbrH6DkKxcu4GnAB2Rdipb');
    // Leave-one-out: the parent's real answer (its user id) is never retrieved.
    expect(edited?.observation?.content).toBe('Error: User not found');
    expect(steps[5]?.observation?.content).toMatch(/^\{"user_id": "amelia_silva_7726"/);
    // After the edit: the parent's real actions, simulated answers; messages as they were.
    expect(steps.slice(5).map((step) => step.action)).toEqual(
      real.slice(5).map((step) => step.action),
    );
    const simulatedAt = steps.flatMap((step) =>
      step.metadata['simulated'] === true ? [step.index] : [],
    );
    expect(simulatedAt).toEqual([4, 5, 6, 11]);
    expect(steps[7]).toEqual({ ...real[7], metadata: { ...real[7]?.metadata, fromParent: true } });
  }, 60_000);

  it('feeds the simulator the fork’s own history and stops after continueSteps', async () => {
    const simulator = recordingSimulator();
    const result = await forkTrajectory(
      store,
      {
        trajectoryId: parent.id,
        step: 5,
        action: { type: 'command', command: 'cat users.json', interpreter: 'bash' },
        sim: 'replay',
        continueSteps: 3,
        dataset: 'what-if',
      },
      { simulator },
    );
    // 5 real steps, the edited one, then steps 6 (a tool call), 7 and 8 (messages).
    expect(result.steps).toBe(9);
    expect(result.simulated).toBe(2);
    expect(result.datasetName).toBe('what-if');
    expect(simulator.seen.map((call) => call.action.type)).toEqual(['command', 'tool_call']);
    // Closed loop: step 6 sees the real step 4 and the simulated answer to the edited step 5.
    expect(simulator.seen[1]?.history.map((transition) => transition.observation.content)).toEqual([
      'isabella_lopez_6490',
      'after 1',
    ]);
    const steps = await storedSteps(store, result.trajectoryId);
    expect(steps).toHaveLength(9);
    expect(steps[5]?.action).toEqual({
      type: 'command',
      command: 'cat users.json',
      interpreter: 'bash',
    });
    expect(steps[6]?.observation?.content).toBe('after 2');
    expect(steps[6]?.metadata).toMatchObject({
      simulated: true,
      fromParent: true,
      latencyMs: 1.5,
      usage: { inputTokens: 3, outputTokens: 2 },
      provenance: { backend: 'recording', cache: null, model: null },
    });
  });

  const at = (step: number, action: Action = EDITED) =>
    forkTrajectory(store, { trajectoryId: parent.id, step, action, sim: 'replay' });

  it('refuses message steps, message actions and steps past the end, naming the field', async () => {
    await expect(at(3)).rejects.toThrow('step: step 3 is a message, not an environment action');
    await expect(at(14)).rejects.toThrow('step: trajectory');
    await expect(at(4, { type: 'message', text: 'hi' })).rejects.toMatchObject({
      field: 'action',
    });
    await expect(at(14)).rejects.toBeInstanceOf(SimulatorError);
  });

  it('serves simulate.fork: the fork replays through the trajectories router', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const result = await api.simulate.fork({
      trajectoryId: parent.id,
      step: 11,
      action: {
        type: 'tool_call',
        name: 'modify_pending_order_payment',
        arguments: { order_id: '#W4923227', payment_method_id: 'gift_card_0000000' },
        callId: null,
      },
      sim: 'retrieval',
    });
    expect(result.steps).toBe(14);
    expect([result.simulated, result.failed]).toEqual([1, 0]);
    const window = await api.trajectories.steps({
      trajectoryId: result.trajectoryId,
      offset: 11,
      limit: 3,
    });
    expect(window.total).toBe(14);
    expect(window.steps[0]?.metadata['provenance']).toEqual({
      backend: 'retrieval',
      cache: null,
      model: null,
    });
    // Replay has no recording of an edited call: refused, rather than stored as an empty
    // "simulated" observation (walk 44).
    await expect(
      api.simulate.fork({ trajectoryId: parent.id, step: 11, action: EDITED, sim: 'replay' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message:
        'sim: replay answers only what its dataset recorded after the very same history, and a fork departs from it: fork with retrieval or a model',
    });
    await expect(
      api.simulate.fork({
        trajectoryId: parent.id,
        step: 4,
        action: EDITED,
        sim: 'retrieval',
        continueSteps: 51,
      }),
    ).rejects.toThrow(/continueSteps/);
    await expect(
      api.simulate.fork({ trajectoryId: '999999', step: 4, action: EDITED, sim: 'retrieval' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('serve --prompts: an endpoint continues the fork in the official protocol', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fork-prompts-'));
    const endpoint = await startRecordingEndpoint();
    try {
      mkdirSync(join(dir, 'mcp'));
      writeFileSync(join(dir, 'mcp', 'system_prompt.txt'), 'Simulate the MCP tools.\n');
      writeFileSync(join(dir, 'mcp', 'judge_system_prompt.txt'), 'Judge.\n');
      const prompts = await readPromptFolder(dir);
      const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL, prompts });
      const result = await api.simulate.fork({
        trajectoryId: parent.id,
        step: 4,
        action: EDITED,
        sim: `openai:${endpoint.url}#wm`,
        continueSteps: 1,
      });
      expect(result.simulated).toBe(2);
      expect(endpoint.bodies).toHaveLength(2);
      const [first, second] = endpoint.bodies;
      expect(first?.messages[0]).toEqual({ role: 'system', content: 'Simulate the MCP tools.\n' });
      // The edited call as the current turn in the row layout (the steps before it are messages).
      expect(first?.messages.slice(1)).toEqual([
        {
          role: 'user',
          content:
            '### Turn 1\n**Action:**\n{"name":"find_user_id_by_email","arguments":{"email":"mei.kovacs8020@example.com"}}',
        },
      ]);
      // The next call sees the fork's own answer to the edit, with the observation marker.
      expect(second?.messages[2]).toEqual({
        role: 'assistant',
        content: '**Environment Observation:**\n{"simulated": true}',
      });
      expect([first?.temperature, first?.max_tokens]).toEqual([0.6, 32768]);
      const steps = await storedSteps(store, result.trajectoryId);
      expect(steps[4]?.observation?.content).toBe('{"simulated": true}');
      const detail = await store.getTrajectory(result.trajectoryId);
      expect(detail?.metadata['fork']).toMatchObject({
        promptsHash: promptFilesHash(promptFilesOf(prompts)),
      });
    } finally {
      await endpoint.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('streams the fork’s progress, then the stored fork (simulate.forkEvents)', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const events: ForkEvent[] = [];
    const stream = await api.simulate.forkEvents({
      trajectoryId: parent.id,
      step: 5,
      action: {
        type: 'tool_call',
        name: 'get_user_details',
        arguments: { user_id: 'mei_kovacs_8020' },
        callId: null,
      },
      sim: 'retrieval',
      continueSteps: 3,
    });
    for await (const event of stream) events.push(event);
    expect(events.slice(0, 2)).toEqual([
      { type: 'progress', done: 1, total: 2 },
      { type: 'progress', done: 2, total: 2 },
    ]);
    expect(events).toHaveLength(3);
    const last = events[2];
    if (last?.type !== 'done') throw new Error('the stream did not end with the fork');
    expect(last.fork.steps).toBe(9);
    expect(last.fork.simulated).toBe(2);
    const steps = await storedSteps(store, last.fork.trajectoryId);
    expect(steps[5]?.action).toMatchObject({ arguments: { user_id: 'mei_kovacs_8020' } });

    const failing = await api.simulate.forkEvents({
      trajectoryId: parent.id,
      step: 3,
      action: EDITED,
      sim: 'replay',
    });
    await expect(async () => {
      for await (const event of failing) events.push(event);
    }).rejects.toThrow('step 3 is a message');
  });
});
