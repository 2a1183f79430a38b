import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { TrajectoryDetail } from '@terrarium/schema';
import { TRPCError } from '@trpc/server';
import {
  buildRetrievalIndex,
  createReplayWorldModel,
  createRetrievalWorldModel,
  DEFAULT_TEMPLATE,
  predictionInputs,
  renderMessages,
} from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { neighborTrajectories } from '../testing/neighbor-trajectories';
import { TAU2_RETAIL } from '../testing/sample-files';
import { parseChatToSimInput } from './chat-input';
import { findDataset, findTrajectory } from './find-trajectory';
import { loadDataset, loadTrajectory } from './load-trajectories';
import { BUNDLED_ONNX_FOLDER, bundledOnnxSpec } from './onnx-simulator';
import { openAIModel, resolveSimulator } from './resolve-simulator';
import { availableSimulators, SimulatorError } from './sim-spec';
import { simulateTrajectory, type SimulationEvent } from './simulate-trajectory';

describe('simulate', () => {
  let store: Store;
  let first: TrajectoryDetail;
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    first = await findTrajectory(store, await findDataset(store, 'retail'));
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it('replays the first tau2 retail trajectory exactly', async () => {
    const seen: number[] = [];
    const result = await simulateTrajectory(store, first.id, 'replay', {
      onStep: (step) => seen.push(step.step),
    });
    expect(result.trajectory).toBe(first.id);
    expect(first.externalId).toBe('55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae');
    expect(result.steps).toHaveLength(4);
    expect(seen).toEqual(result.steps.map((step) => step.step));
    for (const step of result.steps) {
      expect(step.error).toBeNull();
      expect(step.provenance).toEqual({ backend: 'replay', cache: 'hit', model: null });
      expect(step.predicted.content).toBe(step.real.content);
      expect(step.scores['exact-match']).toBe(1);
      expect(step.scores['content']).toBe(1);
    }
  });

  it('retrieves from the other tasks only (leave-one-task-out)', async () => {
    const result = await simulateTrajectory(store, first.id, 'retrieval');
    const exact = result.steps.filter((step) => step.scores['exact-match'] === 1);
    // Measured: every call of this trajectory names its own user and order, which no other
    // trajectory saw; the neighbours are the same tools on other users' records.
    expect(exact).toHaveLength(0);
    expect(result.steps.map((step) => step.step)).toEqual([4, 5, 6, 11]);
    expect(result.steps[0]?.predicted.content).toBe('Error: User not found');
    expect(result.steps[0]?.real.content).toBe('isabella_lopez_6490');
    expect(result.steps[1]?.predicted.content).toMatch(/^\{"user_id": "amelia_silva_7726"/);
    expect(result.steps.every((step) => step.provenance.backend === 'retrieval')).toBe(true);

    const retrieval = await resolveSimulator('retrieval', {
      store,
      trajectory: first,
      allowlist: [],
      fetch,
    });
    const trajectory = await loadTrajectory(store, first);
    const taskOf = new Map(
      (await loadDataset(store, first.datasetId)).map((other) => [other.externalId, other.task]),
    );
    const answered: number[] = [];
    for (const input of predictionInputs(trajectory)) {
      const prediction = await retrieval.predict(input.context, input.history, input.action);
      const neighbors = neighborTrajectories(prediction.provenance.detail);
      expect(neighbors.filter((id) => taskOf.get(id) === trajectory.task)).toEqual([]);
      if (neighbors.length > 0) answered.push(input.stepIndex);
    }
    expect(answered).toEqual([4, 5, 6, 11]);
  });

  it('stops after maxSteps', async () => {
    const result = await simulateTrajectory(store, first.id, 'replay', { maxSteps: 2 });
    expect(result.steps.map((step) => step.step)).toEqual(
      (await simulateTrajectory(store, first.id, 'replay')).steps.slice(0, 2).map((s) => s.step),
    );
  });

  it('refuses endpoint hosts outside the allowlist and onnx specs for now', async () => {
    const outside = simulateTrajectory(store, first.id, 'openai:http://example.org:8000#m', {
      allowlist: ['127.0.0.1'],
    });
    await expect(outside).rejects.toBeInstanceOf(SimulatorError);
    await expect(outside).rejects.toMatchObject({ status: 400, field: 'sim' });
    await expect(outside).rejects.toThrow(/example\.org.*not in the allowlist \[127\.0\.0\.1\]/);
    const unlisted = simulateTrajectory(store, first.id, 'onnx:/tmp');
    await expect(unlisted).rejects.toMatchObject({ status: 400, field: 'sim' });
    await expect(unlisted).rejects.toThrow(/not a configured model folder/);
    const missing = simulateTrajectory(store, first.id, 'onnx:/no/such/model', {
      anyOnnxPath: true,
    });
    await expect(missing).rejects.toThrow(/no model folder at \/no\/such\/model/);
  });

  it('runs the bundled ONNX model', async () => {
    const spec = bundledOnnxSpec();
    if (spec === null) throw new Error(`no bundled model in ${BUNDLED_ONNX_FOLDER}`);
    expect(availableSimulators({}).map((sim) => sim.spec)).toEqual(['replay', 'retrieval', spec]);
    const result = await simulateTrajectory(store, first.id, spec, { maxSteps: 2 });
    expect(result.steps).toHaveLength(2);
    for (const step of result.steps) {
      expect(step.error).toBeNull();
      expect(step.provenance).toEqual({
        backend: 'onnx',
        cache: null,
        model: 'onnx:terrarium-wm-tiny',
      });
      expect(step.usage.outputTokens).toBeGreaterThan(0);
      expect(step.scores['content']).toBeTypeOf('number');
    }
  }, 60_000);

  it('records a failing endpoint per step instead of throwing', async () => {
    // Nothing listens on port 9 of this machine: connection refused, no retry makes it answer.
    const result = await simulateTrajectory(store, first.id, 'openai:http://127.0.0.1:9#m', {
      maxSteps: 1,
      simulator: openAIModel('http://127.0.0.1:9', 'm', { allowlist: ['127.0.0.1'], fetch }),
    });
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]?.error).toMatch(/127\.0\.0\.1:9/);
    expect(result.steps[0]?.scores).toEqual({});
  }, 30_000);

  it('fails, never scores, a step replay or retrieval has no answer for', async () => {
    // Walk 44: a miss was counted as simulated and scored 0 ("retrieval 3 transitions simulated",
    // "Content 0.0"). Replay over the other trajectories of the dataset has none of this one's
    // histories; retrieval over nothing finds nothing alike.
    // Loaded trajectories are named by store id.
    const others = (await loadDataset(store, first.datasetId)).filter(
      (trajectory) => trajectory.externalId !== first.id,
    );
    const replay = await simulateTrajectory(store, first.id, 'replay', {
      simulator: createReplayWorldModel(others),
    });
    const retrieval = await simulateTrajectory(store, first.id, 'retrieval', {
      simulator: createRetrievalWorldModel(buildRetrievalIndex([])),
    });
    // The miss keeps its provenance, so Compare's cache hit rate still counts it.
    expect(replay.steps[0]?.provenance).toEqual({ backend: 'replay', cache: 'miss', model: null });
    expect([...replay.steps, ...retrieval.steps].map((step) => [step.error, step.scores])).toEqual([
      ...Array.from({ length: 4 }, () => [
        'replay: no recorded transition with this history and action in the dataset',
        {},
      ]),
      ...Array.from({ length: 4 }, () => [
        'retrieval: no recorded transition is like this action in the dataset',
        {},
      ]),
    ]);
  });

  it('never scores a failed prediction; a refused connection fails the rest of the steps at once', async () => {
    const page = await store.listTrajectories(
      { datasetId: first.datasetId },
      { offset: 0, limit: 100 },
    );
    const long = page.rows.find((row) => row.transitionCount >= 8);
    if (long === undefined) throw new Error('no retail trajectory with 8 transitions');
    // Through the server's own path (resolveSimulator, its undici transport and breaker).
    const result = await simulateTrajectory(store, long.id, 'openai:http://127.0.0.1:9#m', {
      allowlist: ['127.0.0.1'],
      retry: { attempts: 1, baseDelayMs: 1 },
    });
    expect(result.steps).toHaveLength(long.transitionCount);
    const kinds = result.steps.map((step) =>
      step.error === null
        ? 'predicted'
        : /could not be reached \(last: .*nothing accepted the connection.*\); it is not called again for 30 s$/.test(
              step.error,
            )
          ? 'circuit open'
          : step.error.startsWith(
                'request to http://127.0.0.1:9/v1/chat/completions failed: nothing accepted the connection; is the server running on that port?',
              )
            ? 'refused'
            : step.error,
    );
    expect(kinds).toEqual([
      'refused',
      ...Array.from({ length: long.transitionCount - 1 }, () => 'circuit open'),
    ]);
    // Nothing was scored: no metric, no content score, no tokens, no latency to average in.
    expect(result.steps.filter((step) => Object.keys(step.scores).length > 0)).toEqual([]);
    expect(result.steps.map((step) => [step.predicted.content, step.latencyMs])).toEqual(
      result.steps.map(() => ['', 0]),
    );
  }, 30_000);

  it('serves the simulate router: available simulators and runs', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const available = await api.simulate.available();
    expect(available.map((sim) => sim.spec)).toEqual(
      availableSimulators(process.env).map((sim) => sim.spec),
    );
    expect(available.slice(0, 2).map((sim) => sim.spec)).toEqual(['replay', 'retrieval']);
    expect(
      availableSimulators({ TERRARIUM_SIMULATORS: 'openai:http://127.0.0.1:8000#qwen, replay' }),
    ).toEqual([
      expect.objectContaining({ spec: 'replay' }),
      expect.objectContaining({ spec: 'retrieval' }),
      expect.objectContaining({ spec: 'onnx:models/terrarium-wm-tiny' }),
      {
        spec: 'openai:http://127.0.0.1:8000#qwen',
        label: 'qwen (127.0.0.1:8000)',
        description: 'OpenAI-compatible endpoint http://127.0.0.1:8000, model qwen.',
      },
    ]);

    const run = await api.simulate.run({ trajectoryId: first.id, sim: 'replay', maxSteps: 3 });
    expect(run.steps).toHaveLength(3);
    await expect(
      api.simulate.run({ trajectoryId: first.id, sim: 'replay', maxSteps: 501 }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(api.simulate.run({ trajectoryId: first.id, sim: 'oracle' })).rejects.toMatchObject(
      { code: 'BAD_REQUEST' },
    );
    const missing = api.simulate.run({ trajectoryId: '999999', sim: 'replay' });
    await expect(missing).rejects.toBeInstanceOf(TRPCError);
    await expect(missing).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The same lookups in other services (a bench built from a mistyped dataset) say what is
    // wrong too: their SimulatorError was an "internal error" outside the simulate router.
    await expect(
      api.bench.build({ name: 'typo', datasets: ['retial'], sampling: { kind: 'agentworld' } }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'datasets: no dataset "retial" (datasets: retail)',
    });
  });

  it('streams a run step by step (simulate.runEvents): started, each scored step, done', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const whole = await api.simulate.run({ trajectoryId: first.id, sim: 'replay', maxSteps: 3 });
    const events: SimulationEvent[] = [];
    const stream = await api.simulate.runEvents({
      trajectoryId: first.id,
      sim: 'replay',
      maxSteps: 3,
    });
    for await (const event of stream) events.push(event);
    expect(events).toEqual([
      { type: 'started', total: 3 },
      ...whole.steps.map((step) => ({
        type: 'step',
        step: { ...step, latencyMs: expect.any(Number) },
      })),
      { type: 'done' },
    ]);
    // Without a cap, `started` counts every transition the run will simulate.
    const all = await api.simulate.runEvents({ trajectoryId: first.id, sim: 'replay' });
    for await (const event of all) {
      expect(event).toEqual({ type: 'started', total: first.transitionCount });
      break;
    }

    const missing = await api.simulate.runEvents({ trajectoryId: '999999', sim: 'replay' });
    await expect(async () => {
      for await (const event of missing) events.push(event);
    }).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'trajectoryId: no trajectory 999999',
    });
  });

  it('reads a rendered chat back into the same history and action', async () => {
    const trajectory = await loadTrajectory(store, first);
    const inputs = [...predictionInputs(trajectory)];
    const last = inputs.at(-1);
    if (last === undefined) throw new Error('no transitions');
    const parsed = parseChatToSimInput(
      renderMessages(DEFAULT_TEMPLATE, last.context, last.history, last.action),
    );
    expect(parsed.context).toEqual(last.context);
    expect(parsed.history.map((turn) => turn.observation.content)).toEqual(
      last.history.map((turn) => turn.observation.content),
    );
    expect(parsed.action).toEqual(
      last.action.type === 'tool_call' ? { ...last.action, callId: null } : last.action,
    );
    expect(() =>
      parseChatToSimInput([
        { role: 'system', content: 'x' },
        { role: 'assistant', content: 'y' },
      ]),
    ).toThrow('messages[1].role: expected "user": the last message is the current action');
  });
});
