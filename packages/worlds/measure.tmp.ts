import { loadTrajectories, REAL_FILES } from './src/testing/real-data';
import { createReplayWorldModel } from './src/backends/replay';
import { predictionInputs } from './src/trajectory-inputs';
import { observationKey } from './src/action-text';
for (const f of Object.values(REAL_FILES)) {
  const ts = await loadTrajectories(f);
  const replay = createReplayWorldModel(ts);
  let hits = 0, exact = 0, total = 0;
  for (const t of ts) for (const i of predictionInputs(t)) {
    total++;
    const r = replay.lookup(i.context, i.history, i.action);
    if (r.hit) { hits++; if (observationKey(r.observation) === observationKey(i.expected)) exact++; }
  }
  console.log(f.split('/').pop(), ts.length, total, replay.size, hits, exact);
}
