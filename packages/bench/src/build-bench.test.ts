import { describe, expect, it } from 'vitest';
import type { Sampling } from '@terrarium/schema';
import { BenchItem, BenchManifest } from '@terrarium/schema';
import { buildBench, splitOf, type BenchSource } from './build-bench';
import { readSources } from './real-data.testkit';

function build(
  trajectories: BenchSource[],
  sampling: Sampling,
  seed = 7,
  maxItemsPerTask?: number,
) {
  return buildBench({
    trajectories,
    name: 'test-bench',
    version: 1,
    sampling,
    seed,
    devFraction: 0.2,
    createdAt: '2026-11-29T00:00:00.000Z',
    sources: [...new Set(trajectories.map((source) => source.dataset))],
    maxItemsPerTask,
  });
}

const tau2 = await readSources(['tau2-retail', 'tau2-airline', 'tau2-telecom']);
const sweAgent = await readSources(['swe-agent']);

describe('buildBench on tau2-bench', () => {
  const bench = build(tau2, { kind: 'agentworld' });

  it('samples first, three middle and last transitions per trajectory', () => {
    expect(bench.manifest.itemCount).toBe(441);
    expect(bench.manifest.byTask).toEqual({
      'tau2-bench/airline': 84,
      'tau2-bench/retail': 194,
      'tau2-bench/telecom': 163,
    });
    // Telecom runs of one task start alike (same user, same first lookups) on devices in different
    // hidden states: 37 sampled inputs repeat one another and are kept once.
    expect(bench.manifest.duplicatesDropped).toBe(37);
  });

  it('produces items and a manifest the schema accepts', () => {
    expect(BenchManifest.safeParse(bench.manifest).success).toBe(true);
    expect(bench.items.every((item) => BenchItem.safeParse(item).success)).toBe(true);
  });

  it('copies the history of earlier transitions and the real observation', () => {
    const item = bench.items.find((candidate) => candidate.turnIndex === 2);
    expect(item?.history).toHaveLength(2);
    expect(item?.origin.dataset).toBe('tau2-airline');
    const trajectory = tau2.find(
      (source) => source.trajectory.externalId === item?.origin.trajectory,
    )?.trajectory;
    const step = trajectory?.steps.find((candidate) => candidate.index === item?.origin.stepIndex);
    expect(step?.observation).toEqual(item?.real);
    expect(step?.action).toEqual(item?.action);
  });

  it('orders items by task, then trajectory, then turn', () => {
    const keys = bench.items.map(
      (item) =>
        `${item.task}\u0000${item.origin.trajectory}\u0000${String(item.turnIndex).padStart(4, '0')}`,
    );
    expect(keys).toEqual(keys.toSorted());
  });

  it('has a content hash that does not depend on input order or machine', () => {
    expect(bench.manifest.contentHash).toBe(
      build(tau2.toReversed(), { kind: 'agentworld' }).manifest.contentHash,
    );
    const airline = build(
      tau2.filter((source) => source.dataset === 'tau2-airline'),
      { kind: 'agentworld' },
    );
    expect(airline.manifest.contentHash).toBe('098213b90ace3c0efc6f511a279d');
  });
});

describe('buildBench on SWE-agent', () => {
  it('samples agentworld turns and drops the one duplicated item', () => {
    const bench = build(sweAgent, { kind: 'agentworld' });
    expect(bench.manifest.itemCount).toBe(107);
    expect(bench.manifest.duplicatesDropped).toBe(1);
    expect(bench.manifest.byTask).toEqual({ 'swe-agent/ctf': 43, 'swe-agent/swe': 64 });
    expect(new Set(bench.items.map((item) => item.id)).size).toBe(107);
  });

  it('caps each task with a seeded choice when asked', () => {
    const capped = build(sweAgent, { kind: 'all' }, 7, 40);
    expect(capped.manifest.byTask).toEqual({ 'swe-agent/ctf': 40, 'swe-agent/swe': 40 });
    expect(build(sweAgent, { kind: 'all' }, 7, 40).manifest.contentHash).toBe(
      capped.manifest.contentHash,
    );
    expect(build(sweAgent, { kind: 'all' }, 8, 40).manifest.contentHash).not.toBe(
      capped.manifest.contentHash,
    );
  });
});

describe('dedupe', () => {
  it('keeps one item per identical (context, history, action), whatever the dataset name', () => {
    const airline = tau2.filter((source) => source.dataset === 'tau2-airline');
    const twice = [
      ...airline,
      ...airline.map((source) => ({ ...source, dataset: 'tau2-airline-copy' })),
    ];
    const bench = build(twice, { kind: 'all' });
    expect(bench.manifest.itemCount).toBe(148);
    expect(bench.manifest.duplicatesDropped).toBe(148);
  });
});

describe('random sampling and the split', () => {
  it('draws the same items for the same seed and other items for another seed', () => {
    const first = build(tau2, { kind: 'random', count: 3 }, 11);
    expect(first.manifest.itemCount).toBe(287);
    expect(build(tau2, { kind: 'random', count: 3 }, 11).items.map((item) => item.id)).toEqual(
      first.items.map((item) => item.id),
    );
    expect(build(tau2, { kind: 'random', count: 3 }, 12).manifest.contentHash).not.toBe(
      first.manifest.contentHash,
    );
  });

  it('puts whole trajectories in dev, the same ones whatever the sampling', () => {
    const devOf = (bench: ReturnType<typeof build>) =>
      new Set(
        bench.items.filter((item) => item.split === 'dev').map((item) => item.origin.trajectory),
      );
    const agentworld = build(tau2, { kind: 'agentworld' });
    const all = build(tau2, { kind: 'all' });
    expect(devOf(agentworld)).toEqual(devOf(all));
    for (const source of tau2) {
      const splits = new Set(
        all.items
          .filter((item) => item.origin.trajectory === source.trajectory.externalId)
          .map((item) => item.split),
      );
      expect(splits.size).toBeLessThanOrEqual(1);
    }
    expect(devOf(all).size).toBe(
      tau2.filter(
        (source) => splitOf(7, source.dataset, source.trajectory.externalId, 0.2) === 'dev',
      ).length,
    );
  });

  it('sends nothing to dev at fraction 0 and everything at fraction 1', () => {
    expect(splitOf(7, 'd', 'x', 0)).toBe('test');
    expect(splitOf(7, 'd', 'x', 1)).toBe('dev');
  });
});
