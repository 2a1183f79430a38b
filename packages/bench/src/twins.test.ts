import { describe, expect, it } from 'vitest';
import { itemTrajectoryKey } from './agentworldbench/export-lines';
import { buildBench } from './build-bench';
import { readSources } from './real-data.testkit';
import { crossTaskTwins } from './twins';

function bench(datasets: Awaited<ReturnType<typeof readSources>>) {
  return buildBench({
    trajectories: datasets,
    name: 'twins',
    version: 1,
    sampling: { kind: 'agentworld' },
    seed: 0,
    devFraction: 0,
    createdAt: '2026-12-05T00:00:00.000Z',
    sources: [...new Set(datasets.map((source) => source.dataset))],
  }).items;
}

describe('tasks recorded twice, by two benchmarks', () => {
  it('finds tau2-bench airline tasks in tau-bench airline, and nothing in retail', async () => {
    const items = bench(await readSources(['tau2-airline', 'tau-bench-airline', 'tau2-retail']));
    const twins = crossTaskTwins(items);
    const stratumOf = new Map(items.map((item) => [itemTrajectoryKey(item), item.task]));
    const withTwins = new Map<string, number>();
    for (const [key, found] of twins) {
      const stratum = stratumOf.get(key) ?? '';
      withTwins.set(stratum, (withTwins.get(stratum) ?? 0) + 1);
      // A twin is always of another benchmark: trials of one task are left out by its text.
      for (const twin of found) expect(stratumOf.get(twin)).not.toBe(stratum);
    }
    // Measured: 15 of tau2's 20 airline trajectories make at least half of their calls (name and
    // arguments) in one of tau-bench's 168, and 53 of those 168 in one of tau2's.
    expect(Object.fromEntries(withTwins)).toEqual({
      'tau-bench/airline': 53,
      'tau2-bench/airline': 15,
    });
  });

  it('finds none among one benchmark’s domains', async () => {
    const items = bench(await readSources(['tau2-retail', 'tau2-airline', 'tau2-telecom']));
    expect(crossTaskTwins(items).size).toBe(0);
  });
});
