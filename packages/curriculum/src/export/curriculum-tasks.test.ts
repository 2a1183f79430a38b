/// <reference types="node" />
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CurriculumCheckpoint } from '../evolve/checkpoint';
import { runCurriculum } from '../evolve/curriculum';
import { builtinSeedTasks, scriptedRunOptions } from '../evolve/scripted-run';
import { evolvableWorldFactory } from '../evolve/world-source';
import { Task } from '../tasks/task';
import { curriculumTasks } from './curriculum-tasks';
import {
  containerTrial,
  containerTrialsAvailable,
  CONTAINER_TRIALS_REASON,
  writeExportedFiles,
} from './harbor-trial.testkit';
import { exportTasks, taskFolderName } from './task-export';

const scratch = mkdtempSync(join(tmpdir(), 'curriculum-export-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const GENERATIONS = 12;
let checkpoint: CurriculumCheckpoint;
const seeds = builtinSeedTasks();
const createWorld = evolvableWorldFactory(seeds.worlds, { cacheSize: 0 });

beforeAll(async () => {
  // The demo's curriculum: the scripted policy masters every tier, so each lineage climbs one
  // tier a generation through every axis (noise included) and back round.
  const run = await runCurriculum(
    seeds.tasks,
    GENERATIONS,
    scriptedRunOptions(seeds, { scheduler: 'lineage', probes: 8, maxDepth: 15, seed: 0 }),
  );
  checkpoint = CurriculumCheckpoint.parse({ generation: GENERATIONS, lineages: run.lineages });
});

describe('a curriculum run exported', () => {
  it('lists every task of every lineage, easiest first, or only each lineage’s current one', () => {
    const all = curriculumTasks('7', checkpoint, createWorld, 'all');
    const ids = all.map(({ task }) => task.id);
    expect(ids.slice(0, 5)).toEqual([
      'scratch-last-line',
      'scratch-last-line.t1-execution-length',
      'scratch-last-line.t2-scenario',
      'scratch-last-line.t3-verifier',
      'scratch-last-line.t4-noise',
    ]);
    expect(ids).toHaveLength(25);
    expect(all.map(({ metadata }) => metadata?.['curriculum_tier'])).toEqual([
      ...Array.from({ length: 12 }, (_, tier) => tier),
      ...Array.from({ length: 13 }, (_, tier) => tier),
    ]);
    expect(all[4]?.metadata).toEqual({
      curriculum_run: '7',
      curriculum_lineage: 'scratch-last-line',
      curriculum_tier: 4,
      curriculum_axis: 'noise',
      curriculum_generation: 4,
      curriculum_parent: 'scratch-last-line.t3-verifier',
    });
    const current = curriculumTasks('7', checkpoint, createWorld, 'current');
    expect(current.map(({ task }) => task.id)).toEqual([
      'scratch-last-line.t11-verifier',
      'scratch-count-lines.t12-noise',
    ]);
  });

  it('as JSONL: each line the task as served, its tools and where it sits', () => {
    const result = exportTasks(curriculumTasks('7', checkpoint, createWorld, 'current'), 'jsonl');
    if (result.format !== 'jsonl') throw new Error('asked for JSONL');
    const lines = result.text
      .trimEnd()
      .split('\n')
      .map((line): unknown => JSON.parse(line));
    expect(lines.map((line) => Task.parse(line).id)).toEqual(result.exported);
    const last = lines[1];
    if (typeof last !== 'object' || last === null) throw new Error('a line is an object');
    expect(Object.entries(last).find(([key]) => key === 'metadata')?.[1]).toMatchObject({
      curriculum_tier: 12,
      curriculum_axis: 'noise',
    });
    // A noisy task keeps its level in the world's params: Terrarium's sessions apply it.
    expect(Task.parse(last).world.params['noise']).toBe(0.35);
    expect(result.rejected).toEqual([]);
  });

  it('as Harbor folders: each says its tier and axis, and a noisy one that the container is not noisy', () => {
    const result = exportTasks(curriculumTasks('7', checkpoint, createWorld, 'all'), 'harbor');
    if (result.format !== 'harbor') throw new Error('asked for Harbor');
    expect(result.exported).toHaveLength(25);
    const toml = (id: string) =>
      result.files.find((file) => file.path === `${taskFolderName(id)}/task.toml`)?.content ?? '';
    expect(toml('scratch-count-lines.t6-scenario')).toContain(
      'curriculum_tier = 6\ncurriculum_axis = "scenario"',
    );
    expect(toml('scratch-count-lines.t6-scenario')).toContain('observation_noise = 0.1\n');
    expect(toml('scratch-count-lines')).not.toContain('observation_noise');
  });
});

describe.skipIf(!containerTrialsAvailable())(
  `a curriculum run's Harbor folders in a container-like root${containerTrialsAvailable() ? '' : ` ${CONTAINER_TRIALS_REASON}`}`,
  () => {
    it('runs a task’s scripts where they cannot touch the host’s files', () => {
      const folder = join(scratch, 'reaching-out');
      const probes = ['/usr/terrarium-trial-probe', '/etc/terrarium-trial-probe'];
      writeExportedFiles(folder, [
        {
          path: 'environment/Dockerfile',
          content: 'FROM ubuntu:24.04\nWORKDIR /\n',
          executable: false,
        },
        {
          path: 'solution/solve.sh',
          content: probes.map((probe) => `touch ${probe}\n`).join(''),
          executable: true,
        },
        {
          path: 'tests/test.sh',
          content: 'mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt\n',
          executable: true,
        },
      ]);
      expect(containerTrial(folder, 'oracle')).toBe(1);
      expect(probes.filter((probe) => existsSync(probe))).toEqual([]);
    });

    // 50 chroots of bash: about 2.5 s on an idle machine, more while the suite runs beside it.
    it(
      'every oracle earns reward 1 and no empty solution passes, at every tier',
      { timeout: 120_000 },
      () => {
        const result = exportTasks(curriculumTasks('7', checkpoint, createWorld, 'all'), 'harbor');
        if (result.format !== 'harbor') throw new Error('asked for Harbor');
        const out = join(scratch, 'harbor');
        writeExportedFiles(out, result.files);
        const rewards = result.exported.map((id) => {
          const folder = join(out, taskFolderName(id));
          return [containerTrial(folder, 'oracle'), containerTrial(folder, 'empty')];
        });
        expect(rewards.map(([oracle]) => oracle)).toEqual(result.exported.map(() => 1));
        // A stricter verifier gives credit for the files an empty run leaves as they were; every
        // empty run stays below the pass threshold (1).
        expect(rewards.filter(([, empty]) => empty === undefined || empty >= 1)).toEqual([]);
        expect(readFileSync(join(out, 'scratch-last-line/instruction.md'), 'utf8')).toBe(
          'Write the last line of /data/notes.txt into /data/last.txt, then submit.\n',
        );
      },
    );
  },
);
