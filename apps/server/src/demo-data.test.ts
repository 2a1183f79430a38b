import { openStore } from '@terrarium/db';
import { describe, expect, it } from 'vitest';
import { loadDemoData } from './demo-data';

describe('loadDemoData', () => {
  it(
    'imports each demo folder as a dataset once, into an empty store only',
    { timeout: 180_000 },
    async () => {
      const store = await openStore({ memory: true });
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
      } finally {
        await store.close();
      }
    },
  );
});
