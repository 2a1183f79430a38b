import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { Task } from '@terrarium/curriculum';
import { buildProgram } from '../program';
import { expectOneLineFailure } from '../testing/cli-failure';
import { runCli } from '../testing/run-cli';
import { runTasksExport } from './tasks-command';

const scratch = mkdtempSync(join(tmpdir(), 'tasks-export-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The exported scripts with bash on a copy of the workspace: the reward test.sh writes. */
function reward(folder: string, name: string, solve: boolean): number {
  const root = join(scratch, `${name}-root`);
  const logs = join(scratch, `${name}-logs`);
  cpSync(join(folder, 'environment/workspace'), root, { recursive: true });
  const env = { ...process.env, TASK_ROOT: root, REWARD_DIR: logs };
  if (solve)
    execFileSync('bash', [join(folder, 'solution/solve.sh')], { env, cwd: root, stdio: 'ignore' });
  execFileSync('bash', [join(folder, 'tests/test.sh')], { env, cwd: root, stdio: 'ignore' });
  return Number(readFileSync(join(logs, 'reward.txt'), 'utf8'));
}

/** A JSONL line: the task (validated by its own schema) plus the names of the tools it lists. */
function jsonlTask(line: string): { id: string; source: string; tools: string[] } {
  const value: unknown = JSON.parse(line);
  const task = Task.parse(value);
  const tools: string[] = [];
  if (
    typeof value === 'object' &&
    value !== null &&
    'tools' in value &&
    Array.isArray(value.tools)
  ) {
    for (const tool of value.tools) {
      const fn: unknown =
        typeof tool === 'object' && tool !== null && 'function' in tool ? tool.function : null;
      if (typeof fn === 'object' && fn !== null && 'name' in fn && typeof fn.name === 'string')
        tools.push(fn.name);
    }
  }
  return { id: task.id, source: task.provenance.source, tools };
}

describe('terrarium tasks export', () => {
  it('writes the builtin tasks as JSONL, one task with its tools per line', async () => {
    const out = join(scratch, 'tasks.jsonl');
    await buildProgram().parseAsync([
      'node',
      'terrarium',
      'tasks',
      'export',
      '--format',
      'jsonl',
      '--out',
      out,
    ]);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map(jsonlTask);
    expect(lines.map((line) => [line.id, line.tools, line.source])).toEqual([
      ['scratch-last-line', ['bash', 'submit'], 'builtin'],
      ['scratch-count-lines', ['bash', 'submit'], 'builtin'],
    ]);
  });

  it('writes Harbor folders whose oracle passes and whose empty solution fails', async () => {
    const out = join(scratch, 'harbor');
    const report = await runTasksExport({ format: 'harbor', out });
    expect(report.exported).toEqual(['scratch-last-line', 'scratch-count-lines']);
    expect(readdirSync(join(out, 'scratch-last-line')).toSorted()).toEqual([
      'environment',
      'instruction.md',
      'solution',
      'task.toml',
      'tests',
    ]);
    for (const id of report.exported) {
      expect([
        reward(join(out, id), `${id}-oracle`, true),
        reward(join(out, id), `${id}-empty`, false),
      ]).toEqual([1, 0]);
    }
  });
});

describe('terrarium tasks export --out', () => {
  const SLOW = { timeout: 60_000 };

  it('creates the missing parent folders of a JSONL file', SLOW, async () => {
    const out = join(scratch, 'new', 'parents', 'tasks.jsonl');
    const exported = await runCli(['tasks', 'export', '--format', 'jsonl', '--out', out]);
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(2);
    expect(readdirSync(join(scratch, 'new', 'parents'))).toEqual(['tasks.jsonl']);
  });

  it('says in one line that a folder cannot be the JSONL file', SLOW, async () => {
    const out = join(scratch, 'a-folder');
    mkdirSync(out);
    const refused = await runCli(['tasks', 'export', '--format', 'jsonl', '--out', out]);
    expectOneLineFailure(refused, `cannot write ${out}: it is a folder, not a file`);
    expect(readdirSync(out)).toEqual([]);
  });

  it('says in one line that a file cannot be the Harbor folder, and leaves it', SLOW, async () => {
    const out = join(scratch, 'a-file');
    writeFileSync(out, 'kept\n');
    const refused = await runCli(['tasks', 'export', '--format', 'harbor', '--out', out]);
    expectOneLineFailure(refused, `cannot write ${out}: it is a file, not a folder`);
    expect(readFileSync(out, 'utf8')).toBe('kept\n');
  });
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `tasks export --from InterCode bash ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('generates tasks from trajectories, exports the accepted, and gives each rejection a reason', async () => {
      const out = join(scratch, 'intercode.jsonl');
      const report = await runTasksExport({
        format: 'jsonl',
        out,
        from: [
          sharedDataPath(
            'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_4.json',
          ),
        ],
      });
      const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map(jsonlTask);
      expect(lines.map((line) => line.id)).toEqual(report.exported);
      expect(report.exported).toContain('traj.ic_bash_multiturn_gpt-4_10_turns_fs_4.json-26');
      expect(report.exported.length + report.rejected.length).toBe(27);
      expect(report.rejected.find((entry) => entry.trajectory.endsWith('#6'))?.reason).toContain(
        'the empty solution passes the verifier',
      );
    });
  },
);
