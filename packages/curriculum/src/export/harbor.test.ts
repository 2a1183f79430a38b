/// <reference types="node" />
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { Task } from '../tasks/task';
import { isTerminalWorld } from '../worlds/world-kinds';
import { SCRATCH_WORLD } from '../worlds/world-catalog';
import { exportHarborTask } from './harbor';
import { writeExportedFiles } from './harbor-trial.testkit';

const scratch = mkdtempSync(join(tmpdir(), 'harbor-export-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the exported scripts with bash on a copy of the workspace; returns the reward written. */
function trial(folder: string, name: string, solve: 'oracle' | 'empty' | string): number {
  const root = join(scratch, `${name}-root`);
  const logs = join(scratch, `${name}-logs`);
  cpSync(join(folder, 'environment/workspace'), root, { recursive: true });
  const env = { ...process.env, TASK_ROOT: root, REWARD_DIR: logs };
  if (solve === 'oracle')
    execFileSync('bash', [join(folder, 'solution/solve.sh')], { env, cwd: root });
  else if (solve !== 'empty') execFileSync('bash', ['-c', solve], { env, cwd: root });
  execFileSync('bash', [join(folder, 'tests/test.sh')], { env, cwd: root });
  return Number(readFileSync(join(logs, 'reward.txt'), 'utf8'));
}

describe('Harbor task export', () => {
  for (const input of BUILTIN_TASKS) {
    it(`${input.id}: the oracle passes the exported test.sh, the empty and a no-op solution fail`, () => {
      const task = Task.parse(input);
      const world = SCRATCH_WORLD.create(task.world.params, 0);
      if (!isTerminalWorld(world)) throw new Error('scratch is a terminal world');
      const exported = exportHarborTask(task, world);
      if (!exported.ok) throw new Error(exported.reason);
      const folder = join(scratch, task.id);
      writeExportedFiles(folder, exported.files);
      expect(exported.files.map((file) => file.path).slice(0, 3)).toEqual([
        'instruction.md',
        'task.toml',
        'environment/Dockerfile',
      ]);
      expect(readFileSync(join(folder, 'environment/workspace/data/notes.txt'), 'utf8')).toBe(
        'alpha\nbravo\ncharlie\n',
      );
      expect(trial(folder, `${task.id}-oracle`, 'oracle')).toBe(1);
      expect(trial(folder, `${task.id}-empty`, 'empty')).toBe(0);
      expect(trial(folder, `${task.id}-noop`, 'true')).toBe(0);
    });
  }

  it('gives partial credit by weight and keeps provenance in task.toml', () => {
    const task = Task.parse({
      ...BUILTIN_TASKS[0],
      id: 'weighted',
      verifier: {
        checks: [
          {
            weight: 3,
            check: { kind: 'file-equals', path: '/data/last.txt', content: 'charlie\n' },
          },
          {
            weight: 1,
            check: {
              kind: 'command-output',
              command: 'cat /data/last.txt /data/notes.txt',
              expected: 'nope',
            },
          },
        ],
      },
      provenance: { source: 'intercode/bash', trajectory: 'fs_1/7', steps: [0, 1] },
    });
    const world = SCRATCH_WORLD.create(task.world.params, 0);
    if (!isTerminalWorld(world)) throw new Error('scratch is a terminal world');
    const exported = exportHarborTask(task, world);
    if (!exported.ok) throw new Error(exported.reason);
    const folder = join(scratch, task.id);
    writeExportedFiles(folder, exported.files);
    expect(trial(folder, 'weighted-oracle', 'oracle')).toBe(0.75);
    const toml = readFileSync(join(folder, 'task.toml'), 'utf8');
    expect(toml).toContain('source_trajectory = "fs_1/7"\nsource_steps = [0, 1]');
  });
});
