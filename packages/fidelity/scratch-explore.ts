import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
const DATA='/work/shared/data';
function filesUnder(dir: string): string[] { return readdirSync(dir).flatMap((n) => { const p = join(dir, n); return statSync(p).isDirectory() ? filesUnder(p) : [p]; }).toSorted(); }
const sets: Record<string,string[]> = {
 tau2: readdirSync(`${DATA}/tau2-bench/results`).map(f=>`${DATA}/tau2-bench/results/${f}`),
 tau1: [`${DATA}/tau-bench-v1/historical_trajectories/gpt-4o-airline.json`],
 swe: filesUnder(`${DATA}/swe-agent`).filter(f=>f.endsWith('.traj')),
 bash: filesUnder(`${DATA}/intercode/data/results/bash`),
 sql: [`${DATA}/intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json`],
};
for (const [name, files] of Object.entries(sets)) {
  const sizes: number[] = []; let shown = 0;
  for (const file of files) for await (const ev of readTrajectories(createReadStream(file), {fileName: file})) {
    if (ev.type !== 'trajectory') continue;
    const t = ev.trajectory;
    for (const s of t.steps) { if (!s.observation || s.action.type==='message') continue; sizes.push(s.observation.content.length);
      if (shown < 6 && Math.random() < 0.03) { shown++; console.log(`--- ${name} ${t.domain} ${s.observation.kind} action=${JSON.stringify(s.action).slice(0,200)}\n${s.observation.content.slice(0,600)}`); } }
  }
  sizes.sort((a,b)=>a-b);
  console.log(`=== ${name} n=${sizes.length} median=${sizes[sizes.length>>1]} p90=${sizes[Math.floor(sizes.length*0.9)]} max=${sizes[sizes.length-1]}`);
}
