import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { Task } from '../tasks/task';
import { CurriculumCheckpoint } from './checkpoint';
import { runCurriculum } from './curriculum';
import { scriptedPolicy } from './policy';
import { lineageScheduler } from './schedulers';
import { evolvableWorldFactory, SCRATCH_EVOLVABLE } from './world-source';

const tasks = BUILTIN_TASKS.map((input) => Task.parse(input));
const options = () => ({
  createWorld: evolvableWorldFactory([SCRATCH_EVOLVABLE]),
  policy: scriptedPolicy(),
  scheduler: lineageScheduler(),
});

describe('curriculum checkpoints', () => {
  it('a run stopped after generation 3 and resumed from its stored JSON ends like one that ran through', async () => {
    const through = await runCurriculum(tasks, 6, options());
    const stored: string[] = [];
    const controller = new AbortController();
    const first = await runCurriculum(tasks, 6, {
      ...options(),
      signal: controller.signal,
      onCheckpoint: (checkpoint) => {
        stored.push(JSON.stringify(checkpoint));
        if (checkpoint.generation === 3) controller.abort();
      },
    });
    expect(first.completed).toBe(3);
    const resumeFrom = CurriculumCheckpoint.parse(JSON.parse(stored.at(-1) ?? 'null'));
    const resumed = await runCurriculum([], 6, { ...options(), resume: resumeFrom });
    expect(resumed.completed).toBe(6);
    expect(resumed.generations.map((stats) => stats.generation)).toEqual([4, 5, 6]);
    expect([...first.generations, ...resumed.generations]).toEqual(through.generations);
    expect(resumed.lineages).toEqual(through.lineages);
    expect(resumed.lineages.map((lineage) => lineage.nodes.length)).toEqual([7, 7]);
  });
});
