import { loadItems, REAL_DATASETS } from './src/testing/index.ts';
import { scoreRules, scoreContentClasses, perturb } from './src/index.ts';
for (const d of Object.keys(REAL_DATASETS)) {
  const items = await loadItems(d);
  let bad = 0;
  for (const [i, item] of items.entries()) {
    const other = items[(i + 7) % items.length]!.real;
    for (const p of [other, item.real.replace(/\d/, '5')]) {
      const r = scoreRules(p, item.real);
      for (const [k, v] of Object.entries(r)) if (v !== null && !Number.isFinite(v)) { if (bad++ < 3) console.log(d, 'rule', k, v, JSON.stringify(item.real.slice(0, 100)), JSON.stringify(p.slice(0, 100))); }
      const c = scoreContentClasses(p, item.real, item.history, item.action);
      if (!Number.isFinite(c.score)) { if (bad++ < 6) console.log(d, 'content', c.score, JSON.stringify(c.byClass), JSON.stringify(item.real.slice(0, 100))); }
    }
  }
  console.log(d, 'bad', bad);
}
