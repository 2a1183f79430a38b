import { loadItems } from './src/testing/index.ts';
import { HistoryIndex, classifyObservation, scoreClassified, perturb } from './src/index.ts';
const items = [...await loadItems('tau-bench-v1/airline'), ...await loadItems('swe-agent'), ...await loadItems('intercode/sql')].filter(i => i.real.length >= 200 && i.real.length <= 800);
const preds = items.map(i => perturb('change-deterministic-value', { real: i.real, historyText: i.history.map(t => t.action + '\n' + t.observation).join('\n') + i.action, otherStep: null }) ?? i.real);
const run = () => { let idx = new HistoryIndex(); let traj = ''; items.forEach((item, k) => { if (item.trajectoryId !== traj) { traj = item.trajectoryId; idx = new HistoryIndex(); for (const t of item.history) idx.addTurn(t); } idx.add(item.action); scoreClassified(preds[k]!, classifyObservation(item.real, idx)); idx.add(item.real); }); };
run(); run();
const c0 = process.cpuUsage(); const t0 = performance.now(); let n = 0;
while (performance.now() - t0 < 6000) { run(); n += items.length; }
const c = process.cpuUsage(c0);
console.log(items.length, 'items', Math.round(n / ((c.user + c.system) / 1e6)), 'items/cpu-s');
