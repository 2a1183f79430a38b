import { loadItems, REAL_DATASETS } from '/work/main/packages/fidelity/src/testing/real-items.ts';
import { studyPerturbations } from '/work/main/packages/fidelity/src/testing/perturbation-study.ts';
for (const name of Object.keys(REAL_DATASETS)) {
  const t0 = performance.now();
  const items = await loadItems(name);
  const s = studyPerturbations(items);
  console.log(name, items.length, 'items', (performance.now()-t0).toFixed(0), 'ms', 'rho item', s.itemSpearman.toFixed(3), 'rho means', s.meanSpearman.toFixed(3));
  for (const [k, v] of Object.entries(s.means)) console.log('   ', k.padEnd(28), v === null ? '-' : v.toFixed(4), s.counts[k as keyof typeof s.counts]);
}
