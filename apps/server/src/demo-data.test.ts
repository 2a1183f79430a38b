import { startBenchWorkers } from '@terrarium/api';
import { openMemoryStore } from '@terrarium/db/test-store';
import { describe, expect, it } from 'vitest';
import { loadDemoData, startDemoBench } from './demo-data';

const DEMO_BENCH_COUNTS: unknown[] = [
  'demo',
  1,
  1046,
  {
    'swe-agent/ctf': 43,
    'swe-agent/swe': 64,
    'tau-bench/airline': 498,
    'tau2-bench/airline': 84,
    'tau2-bench/retail': 194,
    'tau2-bench/telecom': 163,
  },
];

describe('loadDemoData', () => {
  it(
    'imports each demo folder as a dataset once, into an empty store only',
    { timeout: 180_000 },
    async () => {
      const store = await openMemoryStore();
      try {
        const reports = await loadDemoData(store);
        expect(
          reports.map((report) => [
            report.dataset,
            report.format,
            report.trajectories,
            report.transitions,
            report.errors.length,
          ]),
        ).toEqual([
          ['swe-agent', 'swe-agent', 22, 232, 0],
          ['tau-bench-airline', 'tau-bench-v1', 200, 1164, 0],
          ['tau2-bench', 'tau2-bench', 100, 1136, 0],
        ]);
        expect(await loadDemoData(store)).toEqual([]);
        expect((await store.listDatasets()).map((dataset) => dataset.name).toSorted()).toEqual([
          'swe-agent',
          'tau-bench-airline',
          'tau2-bench',
        ]);
        // The demo bench: AgentWorldBench sampling over the three datasets, a queued run on it.
        // No worker takes it here (concurrency 0): the server's own workers do in `serve --demo`.
        const workers = await startBenchWorkers(store, { concurrency: 0 });
        try {
          const { bench, run } = await startDemoBench(store, workers.runner, reports);
          expect([bench.name, bench.version, bench.itemCount, bench.byTask]).toEqual(
            DEMO_BENCH_COUNTS,
          );
          expect([run.status, run.sims, run.total]).toEqual([
            'queued',
            ['replay', 'retrieval'],
            2 * bench.itemCount,
          ]);
        } finally {
          await workers.stop();
        }
      } finally {
        await store.close();
      }
    },
  );
});
