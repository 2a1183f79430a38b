import { openStore, type Store } from '@terrarium/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL } from '../trpc';

describe('curriculum router', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  it('runs the builtin demo curriculum and returns generations and lineages', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const result = await api.curriculum.run({ dataset: 'builtin', generations: 3 });
    expect(
      result.generations.map((stats) => [stats.generation, stats.passRate, stats.meanTier]),
    ).toEqual([
      [1, 1, 0],
      [2, 1, 1],
      [3, 1, 2],
    ]);
    expect(
      result.lineages.map((lineage) => lineage.nodes.map((node) => node.axis ?? 'seed')),
    ).toEqual([
      ['seed', 'execution-length', 'scenario', 'verifier'],
      ['seed', 'execution-length', 'scenario', 'verifier'],
    ]);
  });

  it('is for researchers only', async () => {
    const labeler = appRouter.createCaller({
      store,
      principal: { kind: 'user', userId: 'u1', name: 'lee', role: 'labeler' },
    });
    await expect(labeler.curriculum.run({ dataset: 'builtin' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('names a dataset that is not there', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    await expect(api.curriculum.run({ dataset: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
