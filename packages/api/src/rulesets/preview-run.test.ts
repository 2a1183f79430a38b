import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { buildBench, scoreItem, CONTENT_METRIC, type BenchSource } from '@terrarium/bench';
import type { Store } from '@terrarium/db';
import { actionText } from '@terrarium/fidelity';
import { openMemoryStore } from '@terrarium/db/test-store';
import { readTrajectories } from '@terrarium/formats';
import type { BenchItem } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../router';
import { TAU2_AIRLINE } from '../testing/sample-files';
import { PROGRAM_PRINCIPAL } from '../trpc';

/** The store's seeded order (`listPredictions`' `shuffle`): by md5 of the seed's digits and the id. */
function seededOrder(ids: readonly string[], seed: number): string[] {
  const key = (id: string) => createHash('md5').update(`${seed}${id}`).digest('hex');
  return ids.toSorted((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A plausible imperfect prediction: the last third of the real observation lost. */
const damaged = (item: BenchItem) =>
  item.real.content.slice(0, Math.ceil(item.real.content.length * 0.66));

/**
 * The editor's preview on a real bench run: a real tau2 airline bench, predictions recorded for
 * its items by two simulators (replay, which returns the real observation, and a damaged
 * "retrieval"), and the draft scored on them. With the default rule set the draft's score of each
 * item is the bench's own stored content score.
 */
describe('rulesets.preview on a bench run', () => {
  let store: Store;
  let runId = '';
  let items: BenchItem[] = [];
  beforeAll(async () => {
    store = await openMemoryStore();
    const sources: BenchSource[] = [];
    for await (const event of readTrajectories(createReadStream(TAU2_AIRLINE), {
      fileName: TAU2_AIRLINE,
    })) {
      if (event.type === 'trajectory')
        sources.push({ dataset: 'airline', trajectory: event.trajectory });
    }
    const built = buildBench({
      trajectories: sources,
      name: 'airline',
      version: 1,
      sampling: { kind: 'agentworld' },
      seed: 0,
      devFraction: 0,
      createdAt: '2026-01-01T00:00:00.000Z',
      sources: ['airline'],
    });
    const { version: _version, ...manifest } = built.manifest;
    await store.createBench(manifest, built.items);
    const run = await store.createBenchRun({
      bench: 'airline',
      sims: ['replay', 'retrieval'],
      judge: null,
      mode: { kind: 'open' },
      split: 'test',
    });
    runId = run.id;
    items = built.items.filter((item) => item.split === 'test').slice(0, 8);
    for (const item of items) {
      for (const [sim, content] of [
        ['replay', item.real.content],
        ['retrieval', damaged(item)],
      ] as const) {
        const observation = { kind: item.real.kind, content, callId: null };
        await store.recordPrediction(
          {
            runId,
            itemId: item.id,
            sim,
            observation,
            reasoning: null,
            provenance: null,
            latencyMs: 1,
            usage: { inputTokens: 0, outputTokens: 0 },
            error: null,
          },
          scoreItem(item, sim, observation),
        );
      }
    }
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it(
    "scores the run's predictions; the default equals the stored content scores",
    { timeout: 60_000 },
    async () => {
      const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
      const document = (await api.rulesets.get({ name: 'default-tool' })).document;
      const preview = await api.rulesets.preview({
        document,
        source: { kind: 'run', runId, sim: 'retrieval' },
        sample: { kind: 'first', n: 8 },
      });
      if (!preview.ok) throw new Error('the default did not parse');
      expect(preview.sim).toBe('retrieval');
      expect(preview.items).toHaveLength(items.length);
      const stored = await store.listScores(runId, {
        sim: 'retrieval',
        metric: CONTENT_METRIC,
        offset: 0,
        limit: 100,
      });
      const byItem = new Map(stored.rows.map((score) => [score.itemId, score.value]));
      for (const item of preview.items) {
        expect(item.draft.score).toBe(byItem.get(item.itemId));
        // Nothing saved under default-tool: the built-in default is the baseline, so nothing moved.
        expect(item.delta).toBe(0);
      }
      expect(new Set(preview.items.map((item) => item.draft.score)).size).toBeGreaterThan(1);
      // Each row names its item: the bench item's task and domain beside the hash.
      const byId = new Map(items.map((item) => [item.id, item]));
      expect(preview.items.map((item) => [item.task, item.domain])).toEqual(
        preview.items.map((item) => [byId.get(item.itemId)?.task, 'tool']),
      );
      expect(preview.items[0]?.task).toMatch(/airline/);
      // And by where it sits: its trajectory, turn and action (what the table shows), the
      // action's arguments in the agent's order (bench items are json since migration 22).
      for (const item of preview.items) {
        const source = byId.get(item.itemId);
        expect(item.place).toEqual({
          trajectory: source?.origin.trajectory,
          turnIndex: source?.turnIndex,
          totalTurns: source?.totalTurns,
        });
        expect(item.action).toBe(
          source === undefined ? null : actionText(source.action).slice(0, 120),
        );
      }
    },
  );

  it(
    'without a simulator named, scores the first that is not the oracle, and the oracle when asked',
    { timeout: 60_000 },
    async () => {
      const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
      const document = (await api.rulesets.get({ name: 'default-tool' })).document;
      const unnamed = await api.rulesets.preview({
        document,
        source: { kind: 'run', runId },
        sample: { kind: 'first', n: 8 },
      });
      if (!unnamed.ok) throw new Error('the default did not parse');
      // Replay comes first in the run, but it answers with the real observation: never the default.
      expect(unnamed.sim).toBe('retrieval');
      const oracle = await api.rulesets.preview({
        document,
        source: { kind: 'run', runId, sim: 'replay' },
        sample: { kind: 'first', n: 8 },
      });
      if (!oracle.ok) throw new Error('the default did not parse');
      expect([oracle.sim, oracle.items.map((item) => item.draft.score)]).toEqual([
        'replay',
        items.map(() => 1),
      ]);
    },
  );

  it("draws a random sample from the whole run in the seed's order, not its first items by id", async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const document = (await api.rulesets.get({ name: 'default-tool' })).document;
    const sample = async (seed: number) => {
      const preview = await api.rulesets.preview({
        document,
        source: { kind: 'run', runId, sim: 'retrieval' },
        sample: { kind: 'random', n: 3, seed },
      });
      if (!preview.ok) throw new Error('the default did not parse');
      return preview.items.map((item) => item.itemId);
    };
    const [one, two] = [await sample(1), await sample(2)];
    const ids = items.map((item) => item.id);
    expect(one).toEqual(seededOrder(ids, 1).slice(0, 3));
    expect(two).toEqual(seededOrder(ids, 2).slice(0, 3));
    expect(one).not.toEqual(two);
    expect(await sample(1)).toEqual(one);
  });

  it('refuses a simulator the run does not have, naming the field', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const document = (await api.rulesets.get({ name: 'default-tool' })).document;
    await expect(
      api.rulesets.preview({
        document,
        source: { kind: 'run', runId, sim: 'onnx:models/absent.onnx' },
        sample: { kind: 'first', n: 8 },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: `source.sim: onnx:models/absent.onnx is not a simulator of bench run ${runId} (replay, retrieval)`,
    });
  });
});
