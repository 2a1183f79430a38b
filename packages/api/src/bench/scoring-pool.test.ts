import { createReadStream } from 'node:fs';
import { buildBench, scoreItem, type BenchSource } from '@terrarium/bench';
import { readTrajectories } from '@terrarium/formats';
import type { BenchItem } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAU2_RETAIL } from '../testing/sample-files';
import { createScoringPool } from './scoring-pool';

async function retailItems(): Promise<BenchItem[]> {
  const sources: BenchSource[] = [];
  for await (const event of readTrajectories(createReadStream(TAU2_RETAIL), {
    fileName: TAU2_RETAIL,
  })) {
    if (event.type === 'trajectory')
      sources.push({ dataset: 'retail', trajectory: event.trajectory });
  }
  return buildBench({
    trajectories: sources,
    name: 'retail',
    version: 1,
    sampling: { kind: 'agentworld' },
    seed: 0,
    devFraction: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    sources: ['retail'],
  }).items;
}

describe('the scoring pool', () => {
  let items: BenchItem[];
  const pool = createScoringPool();
  beforeAll(async () => {
    items = await retailItems();
  }, 60_000);
  afterAll(async () => {
    await pool.close();
  });

  it('scores on its thread exactly as scoreItem does here, many requests in flight', async () => {
    // Real tau2 items, each against its own observation and against the next item's.
    const requests = items.flatMap((item, index) => {
      const other = items[(index + 1) % items.length]?.real ?? item.real;
      return [
        { item, sim: 'replay', predicted: item.real },
        { item, sim: 'retrieval', predicted: other },
      ];
    });
    const scored = await Promise.all(
      requests.map(({ item, sim, predicted }) => pool.score(item, sim, predicted)),
    );
    expect(requests).toHaveLength(388);
    expect(scored).toEqual(
      requests.map(({ item, sim, predicted }) => scoreItem(item, sim, predicted)),
    );
  }, 120_000);

  it('loads its thread when warmed, before any score, and then scores with it', async () => {
    const fresh = createScoringPool();
    try {
      await fresh.warm();
      const [item] = items;
      if (item === undefined) throw new Error('no items');
      expect(await fresh.score(item, 'replay', item.real)).toEqual(
        scoreItem(item, 'replay', item.real),
      );
    } finally {
      await fresh.close();
    }
  }, 60_000);

  it('rejects a warm-up that the pool is closed before', async () => {
    const fresh = createScoringPool();
    const warming = fresh.warm();
    await fresh.close();
    await expect(warming).rejects.toThrow(/the scoring worker exited/);
  }, 60_000);

  it('fails a request the worker cannot read, and then scores the next one', async () => {
    const [item] = items;
    if (item === undefined) throw new Error('no items');
    // NaN is a number to TypeScript and no JSON value to the worker's schema.
    const broken: BenchItem = {
      ...item,
      action: { type: 'tool_call', name: 'get_order_details', arguments: Number.NaN, callId: null },
    };
    await expect(pool.score(broken, 'replay', item.real)).rejects.toThrow(/arguments/);
    expect(await pool.score(item, 'replay', item.real)).toEqual(
      scoreItem(item, 'replay', item.real),
    );
  }, 60_000);
});
