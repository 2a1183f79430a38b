import { loadItems } from './src/testing/index.ts';
import { scoreContentClasses, scoreRules } from './src/index.ts';
const items = [...await loadItems('tau-bench-v1/airline'), ...await loadItems('intercode/bash')];
const json = items.filter(i => i.real.startsWith('{"')).map(i => i.real);
let arr: string[] = []; let len = 0; for (const p of json) { if (len + p.length > 20000) break; arr.push(p); len += p.length + 2; }
const real = `[${arr.join(', ')}]`;
const pred = real.replace(/"price": \d+/, '"price": 1').replaceAll('2024-05-1', '2024-05-2');
const hist = [{ action: 'x', observation: real.slice(0, 10000) }];
const mode = process.argv[2];
const t0 = performance.now();
let n = 0;
while (performance.now() - t0 < 8000) {
  if (mode === 'rules') scoreRules(pred, real); else scoreContentClasses(pred, real, hist);
  n++;
}
console.log(mode, ((performance.now() - t0) / n).toFixed(2), 'ms/pair');
