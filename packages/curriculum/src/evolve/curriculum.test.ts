import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { runGates } from '../tasks/gates';
import { Task } from '../tasks/task';
import { currentNode, runCurriculum } from './curriculum';
import { mutate } from './mutators';
import { programsIn, scriptedPolicy } from './policy';
import { randomFor } from './random';
import { rollout } from './rollout';
import { bandScheduler, lineageScheduler } from './schedulers';
import { evolvableEmptyWorlds, evolvableWorldFactory, SCRATCH_EVOLVABLE } from './world-source';

const createWorld = evolvableWorldFactory([SCRATCH_EVOLVABLE]);
const [lastLine, countLines] = BUILTIN_TASKS.map((input) => Task.parse(input));
if (lastLine === undefined || countLines === undefined) throw new Error('two builtin tasks');
const context = (childId: string) => ({ createWorld, childId, random: randomFor(childId) });

describe('mutators on the builtin scratch tasks', () => {
  it('execution length: one more step, checked by a new file check, and the gates hold', async () => {
    const outcome = await mutate('execution-length', lastLine, context('longer'));
    if (!outcome.ok) throw new Error(outcome.reason);
    const added = outcome.task.verifier.checks.at(-1);
    expect(outcome.task.oracle).toHaveLength(lastLine.oracle.length + 1);
    expect(added?.check.kind).toBe('file-equals');
    expect(outcome.diff.verifier.after.checks).toHaveLength(2);
    const report = await runGates(outcome.task, createWorld);
    expect(report.reasons).toEqual([]);
  });

  it('scenario: distractors join the world through the overlay, the verifier is re-derived', async () => {
    const outcome = await mutate('scenario', lastLine, context('busier'));
    if (!outcome.ok) throw new Error(outcome.reason);
    const paths = Object.keys(outcome.diff.worldAdded);
    expect(paths).toHaveLength(2);
    for (const path of paths) expect(path.startsWith('/data/')).toBe(true);
    const world = createWorld(outcome.task.world, 0);
    await world.reset();
    const listing = await world.step({ type: 'command', command: 'ls /data', interpreter: 'bash' });
    for (const path of paths) expect(listing.observation.content).toContain(path.slice(6));
    expect((await runGates(outcome.task, createWorld)).accepted).toBe(true);
  });

  it('refuses what an axis cannot do, with the reason', async () => {
    expect(await mutate('skill', lastLine, context('a'))).toEqual({
      ok: false,
      axis: 'skill',
      reason: 'the verifier does not check the answer',
    });
    expect(await mutate('skill', countLines, context('b'))).toEqual({
      ok: false,
      axis: 'skill',
      reason: 'the answer is not the output of a shell command',
    });
  });

  it('stricter verifier: lenient answers become exact, then untouched files are protected', async () => {
    const exact = await mutate('verifier', countLines, context('exact'));
    if (!exact.ok) throw new Error(exact.reason);
    expect(exact.task.verifier.checks[0]?.check).toEqual({
      kind: 'answer-equals',
      expected: '3',
      normalize: 'exact',
    });
    const guarded = await mutate('verifier', exact.task, context('guarded'));
    if (!guarded.ok) throw new Error(guarded.reason);
    expect(
      guarded.task.verifier.checks.slice(1).map(({ check }) => ('path' in check ? check.path : '')),
    ).toEqual(['/data/file-0.txt', '/data/file-1.txt', '/data/file-2.txt']);
    expect((await runGates(guarded.task, createWorld)).reasons).toEqual([]);
  });
});

describe('the empty worlds a curriculum’s gates use', () => {
  const emptyWorld = evolvableEmptyWorlds([SCRATCH_EVOLVABLE]);

  it('are the same kind of world with nothing in it, and none for a world the run lacks', async () => {
    const world = emptyWorld({
      id: 'scratch',
      params: { files: 5, overlay: { '/data/x': 'x\n' } },
    });
    if (world === undefined) throw new Error('scratch has an empty world');
    await world.reset();
    const listing = await world.step({ type: 'command', command: 'ls /data', interpreter: 'bash' });
    expect(listing.observation.content).toBe(
      "ls: cannot access '/data': No such file or directory\n",
    );
    expect(emptyWorld({ id: 'elsewhere', params: {} })).toBeUndefined();
  });

  it('refuse a task whose answer they give too, a value computed over nothing', async () => {
    const constant = Task.parse({
      ...BUILTIN_TASKS[1],
      id: 'count-nothing',
      oracle: ['echo 0', 'submit'],
      verifier: {
        checks: [{ check: { kind: 'answer-equals', expected: '0', normalize: 'lines' } }],
      },
    });
    const report = await runGates(constant, createWorld, 0, {}, emptyWorld);
    expect(report.gates.map((gate) => [gate.gate, gate.ok])).toEqual([
      ['oracle-passes', true],
      ['empty-fails', true],
      ['noop-fails', true],
      ['initial-fails', true],
      ['world-needed', false],
    ]);
    // Without them (as before), nothing stopped it.
    expect((await runGates(constant, createWorld)).accepted).toBe(true);
  });
});

describe('schedulers', () => {
  it('lineage: advance only above 6 of 8', () => {
    const scheduler = lineageScheduler();
    expect([6, 7, 8].map((passes) => scheduler.decide({ passes, rollouts: 8 }))).toEqual([
      'stay',
      'advance',
      'advance',
    ]);
  });
  it('band: retreat below 0.3, stay within, advance above 0.7', () => {
    const scheduler = bandScheduler();
    expect([1, 3, 5, 6].map((passes) => scheduler.decide({ passes, rollouts: 8 }))).toEqual([
      'retreat',
      'stay',
      'stay',
      'advance',
    ]);
  });
});

describe('scripted policy', () => {
  it('names the programs of a line', () => {
    expect(programsIn("{ cat a | grep b; } | tr 'a-z' 'A-Z' && wc -l x")).toEqual([
      'cat',
      'grep',
      'tr',
      'wc',
    ]);
  });

  it('plays the oracle and is deterministic for a seed', async () => {
    const policy = scriptedPolicy({ slip: 0, rareSlip: 0, sloppy: 0 });
    const played = await rollout(lastLine, policy, createWorld, 7);
    expect(played.evaluation.passed).toBe(true);
    expect(played.steps.map((step) => step.action)).toEqual([
      'cat /data/notes.txt',
      'echo charlie > /data/last.txt',
      'submit',
    ]);
    const sloppy = scriptedPolicy({ slip: 0, rareSlip: 0, sloppy: 1 });
    const a = await rollout(lastLine, sloppy, createWorld, 1);
    const b = await rollout(lastLine, sloppy, createWorld, 1);
    expect(a).toEqual(b);
  });
});

describe('a curriculum on the builtin tasks', () => {
  it('advances tiers on verifier-scored probes, every node gated, rejections with reasons', async () => {
    const result = await runCurriculum([lastLine, countLines], 6, {
      createWorld,
      policy: scriptedPolicy(),
      scheduler: lineageScheduler(),
    });
    expect(
      result.generations.map(({ generation, tasks, passRate, partialGroups, meanTier }) => ({
        generation,
        tasks,
        passRate,
        partialGroups,
        meanTier,
      })),
    ).toEqual([
      { generation: 1, tasks: 2, passRate: 1, partialGroups: 0, meanTier: 0 },
      { generation: 2, tasks: 2, passRate: 1, partialGroups: 0, meanTier: 1 },
      { generation: 3, tasks: 2, passRate: 1, partialGroups: 0, meanTier: 2 },
      { generation: 4, tasks: 2, passRate: 0.9375, partialGroups: 0.5, meanTier: 3 },
      // Tier 4 is the noise axis: the lineages' verifiers check files, which noise cannot reach.
      { generation: 5, tasks: 2, passRate: 1, partialGroups: 0, meanTier: 4 },
      { generation: 6, tasks: 2, passRate: 0.9375, partialGroups: 0.5, meanTier: 5 },
    ]);
    for (const lineage of result.lineages) {
      for (const node of lineage.nodes.slice(1))
        expect((await runGates(node.task, createWorld)).accepted).toBe(true);
      for (const rejected of lineage.rejected) expect(rejected.reasons.length).toBeGreaterThan(0);
    }
    expect(result.lineages.map((lineage) => currentNode(lineage).tier)).toEqual([6, 6]);
    expect(
      result.lineages.flatMap((lineage) =>
        lineage.rejected.map(
          (r) => `${r.generation} ${r.parentId} ${r.axis}: ${r.reasons.join('; ')}`,
        ),
      ),
    ).toEqual([
      '3 scratch-last-line.t2-scenario skill: the verifier does not check the answer',
      '3 scratch-count-lines.t2-scenario skill: the answer is not the output of a shell command',
    ]);
  });

  it('caps a lineage at the maximum depth', async () => {
    const result = await runCurriculum([countLines], 4, {
      createWorld,
      policy: scriptedPolicy({ slip: 0, rareSlip: 0, sloppy: 0 }),
      scheduler: lineageScheduler(),
      maxDepth: 2,
    });
    const [lineage] = result.lineages;
    expect(lineage?.nodes.map((node) => node.tier)).toEqual([0, 1, 2]);
    expect(lineage?.capped).toBe(true);
  });
});
