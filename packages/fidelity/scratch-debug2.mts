import { loadItems } from './src/testing/real-items.ts';
import { scoreContentClasses, perturb } from './src/index.ts';
const name = process.argv[2] ?? 'intercode/bash';
const kind = (process.argv[3] ?? 'identity') as 'identity';
const above = Number(process.argv[4] ?? 0.85);
const items = await loadItems(name);
let shown = 0;
for (const item of items) {
  if (item.real.trim() === '') continue;
  const historyText = [...item.history.flatMap((t) => [t.action, t.observation]), item.action].join('\n');
  const p = perturb(kind, { real: item.real, historyText, otherStep: null });
  if (p === null) continue;
  const r = scoreContentClasses(p, item.real, item.history, item.action);
  if (r.score > above && r.score < 1 && shown++ < 3) {
    console.log('=== score', r.score, r.contradictions, JSON.stringify(r.byClass));
    console.log('ACTION:', item.action.slice(0, 200));
    console.log('REAL:', item.real.slice(0, 300));
    console.log('PRED:', p.slice(0, 300));
    console.log(r.explanation.filter(e => !e.matched).slice(0, 8).map(e => `${e.class} ${e.span.kind} ${JSON.stringify(e.span.text.slice(0,60))} @${e.span.anchor}: ${e.why}`).join('\n'));
  }
}
