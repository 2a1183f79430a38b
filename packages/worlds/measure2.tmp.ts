import { loadTrajectories, REAL_FILES } from './src/testing/real-data';
import { buildRetrievalIndex } from './src/backends/retrieval';
import { predictionInputs } from './src/trajectory-inputs';
import { actionHead } from './src/action-text';
for (const f of [REAL_FILES.tauBenchV1Airline, REAL_FILES.intercodeSql, REAL_FILES.tau2Telecom]) {
  const ts = await loadTrajectories(f);
  const train = ts.filter((_, i) => i % 5 !== 0), test = ts.filter((_, i) => i % 5 === 0);
  const t0 = performance.now();
  const index = buildRetrievalIndex(train);
  const t1 = performance.now();
  let total = 0, same = 0, exact = 0, withTool = 0;
  const heads = new Set<string>();
  for (const t of train) for (const i of predictionInputs(t)) heads.add(actionHead(i.action));
  for (const t of test) for (const i of predictionInputs(t)) {
    total++;
    const [n] = index.search(i.context, i.history, i.action, 1);
    if (heads.has(actionHead(i.action))) withTool++;
    if (n?.sameHead) same++;
    if (n && n.observation.content === i.expected.content) exact++;
  }
  const t2 = performance.now();
  console.log(f.split('/').pop(), index.size, total, 'sameTool', same, 'toolSeen', withTool, 'exact', exact, 'build ms', (t1-t0).toFixed(0), 'pred/s', (total/((t2-t1)/1000)).toFixed(0));
}
