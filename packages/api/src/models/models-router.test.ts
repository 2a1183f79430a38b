import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { promptNeighbors, splitSide } from '@terrarium/inference';
import type { Action, TrajectoryDetail } from '@terrarium/schema';
import { buildRetrievalIndex, leaveOut, predictionInputAt } from '@terrarium/worlds';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { appRouter } from '../router';
import { TAU2_RETAIL } from '../testing/sample-files';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { findDataset, findTrajectory } from '../simulate/find-trajectory';
import { loadDataset, loadTrajectory } from '../simulate/load-trajectories';
import { BUNDLED_ONNX_FOLDER } from '../simulate/onnx-simulator';

/** models.neighbors and models.evaluation on a real store holding the real tau2 retail results. */
describe('the models router', () => {
  let store: Store;
  let first: TrajectoryDetail;
  let api: ReturnType<typeof appRouter.createCaller>;
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    first = await findTrajectory(store, await findDataset(store, 'retail'));
    api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it('gives a stored step the neighbors packages/inference picks, its own trajectory left out', async () => {
    // Step 4 of the first retail simulation: find_user_id_by_name_zip, answered isabella_lopez_6490.
    const answer = await api.models.neighbors({ trajectoryId: first.id, step: 4 });
    const trajectories = await loadDataset(store, first.datasetId);
    const trajectory = await loadTrajectory(store, first);
    const input = predictionInputAt(trajectory, 4);
    if (input === null) throw new Error('step 4 is not a transition');
    const index = buildRetrievalIndex(trajectories);
    const expected = promptNeighbors(
      index,
      input.context,
      input.history,
      input.action,
      leaveOut(trajectory.externalId, trajectory.task),
    );
    expect(answer.dataset.name).toBe('retail');
    expect(answer.indexed).toBe(index.size);
    expect(answer.neighbors).toEqual(expected);
    expect(answer.neighbors).toHaveLength(2);
    // Measured: no other trajectory of the file looks a user up by name and zip; the nearest are
    // the lookups by e-mail (same kind of argument-to-id call).
    expect(
      answer.neighbors.map((neighbor) =>
        neighbor.action.type === 'tool_call' ? neighbor.action.name : neighbor.action.type,
      ),
    ).toEqual(['find_user_id_by_email', 'find_user_id_by_email']);
    // The trajectory's own answer is never shown to the model predicting it.
    expect(answer.neighbors.map((neighbor) => neighbor.observation)).not.toContain(
      'isabella_lopez_6490',
    );
  });

  it('gives a typed action the neighbors of the whole dataset, the exact recorded call first', async () => {
    const trajectory = await loadTrajectory(store, first);
    const action: Action | undefined = predictionInputAt(trajectory, 4)?.action;
    if (action === undefined) throw new Error('step 4 is not a transition');
    const answer = await api.models.neighbors({ dataset: 'retail', domain: 'tool', action, k: 3 });
    expect(answer.neighbors).toHaveLength(3);
    expect(answer.neighbors[0]).toEqual({ action, observation: 'isabella_lopez_6490' });
  });

  it('answers a step that is no transition with a 400 and an unknown trajectory with a 404', async () => {
    await expect(api.models.neighbors({ trajectoryId: first.id, step: 0 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'step: step 0 of this trajectory is not an action with an observation',
    });
    const missing = api.models.neighbors({ trajectoryId: 'nope', step: 4 });
    await expect(missing).rejects.toBeInstanceOf(TRPCError);
    await expect(missing).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads the bundled model’s own evaluation table (models/evaluate.ts’s fidelity.json)', async () => {
    const json: unknown = JSON.parse(
      await readFile(join(BUNDLED_ONNX_FOLDER, 'fidelity.json'), 'utf8'),
    );
    const bySource: unknown =
      typeof json === 'object' && json !== null ? Reflect.get(json, 'bySource') : undefined;
    const evaluation = await api.models.evaluation({ model: 'terrarium-wm-tiny' });
    expect(evaluation).toEqual({ status: 'ok', bySource });
    // The three simulators of issue 13 on every source.
    expect(
      evaluation.status === 'ok'
        ? Object.values(evaluation.bySource).map((row) => Object.keys(row).toSorted())
        : [],
    ).toEqual(
      Object.keys(evaluation.status === 'ok' ? evaluation.bySource : {}).map(() => [
        'model',
        'model-no-context',
        'retrieval',
      ]),
    );
  });

  it('says which stored trajectories’ tasks the bundled model trained on and which it held out', async () => {
    const answer = await api.models.split({ model: 'terrarium-wm-tiny' });
    if (answer.status !== 'ok') throw new Error(answer.reason);
    const dataset = await findDataset(store, 'retail');
    const { rows } = await store.listTrajectories(
      { datasetId: dataset.id },
      { offset: 0, limit: 100 },
    );
    const sides: Record<string, string[]> = {};
    for (const row of rows) {
      const detail = await store.getTrajectory(row.id);
      if (detail === null) throw new Error(`no trajectory ${row.id}`);
      const { side, task } = splitSide(answer.split, detail);
      (sides[side] ??= []).push(task ?? '');
    }
    // tau2 retail: 40 trajectories, one per task; split.json holds out these 8 of them.
    expect(sides['training']?.length).toBe(32);
    expect(sides['held-out']?.toSorted()).toEqual(
      answer.split.heldOutTasks.filter((task) => task.startsWith('tau2/retail/')).toSorted(),
    );
    expect(sides['held-out']?.length).toBe(8);
    expect(sides['outside']).toBeUndefined();
    await expect(api.models.split({ model: 'elsewhere' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('reads a served folder’s evaluation table, says when it has none, and reads only served folders', async () => {
    // Two model folders served as TERRARIUM_SIMULATORS lists them: one with the per-source table
    // models/evaluate.ts writes, one with an evaluation of the older layout (no intervals).
    const root = await mkdtemp(join(tmpdir(), 'terrarium-evaluation-'));
    const withTable = join(root, 'with-table');
    const older = join(root, 'older');
    const bare = join(root, 'bare');
    const bySource = {
      'tau2/retail': {
        model: {
          transitions: 7,
          content: { mean: 0.61, low: 0.4, high: 0.8 },
          tokenF1: { mean: 0.7, low: 0.5, high: 0.9 },
        },
        retrieval: {
          transitions: 7,
          content: { mean: 0.5, low: 0.3, high: 0.7 },
          tokenF1: { mean: 0.64, low: 0.45, high: 0.8 },
        },
      },
    };
    for (const folder of [withTable, older, bare]) await mkdir(folder);
    await writeFile(join(withTable, 'fidelity.json'), JSON.stringify({ bySource, seed: 1 }));
    await writeFile(
      join(older, 'fidelity.json'),
      JSON.stringify({ bySource: { all: { retrieval: { transitions: 3, meanTokenF1: 0.5 } } } }),
    );
    const before = process.env['TERRARIUM_SIMULATORS'];
    process.env['TERRARIUM_SIMULATORS'] = [withTable, older, bare]
      .map((f) => `onnx:${f}`)
      .join(',');
    try {
      expect(await api.models.evaluation({ model: 'with-table' })).toEqual({
        status: 'ok',
        bySource,
      });
      expect(await api.models.evaluation({ model: 'older' })).toEqual({
        status: 'unreadable',
        reason:
          'older/fidelity.json has no per-source figures with intervals (an older evaluation)',
      });
      expect(await api.models.evaluation({ model: 'bare' })).toEqual({
        status: 'missing',
        reason: 'bare has no fidelity.json',
      });
      // A name that is no served folder never reaches the disk.
      await expect(api.models.evaluation({ model: '..' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'model: no served model folder ".."',
      });
    } finally {
      if (before === undefined) delete process.env['TERRARIUM_SIMULATORS'];
      else process.env['TERRARIUM_SIMULATORS'] = before;
      await rm(root, { recursive: true, force: true });
    }
  });
});
