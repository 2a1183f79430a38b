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
import { seededDataDir } from '@terrarium/db/test-store';
import { exitOf, runCli, startCli, waitForServeUrl } from '../testing/run-cli';
import { runTasksExport } from './tasks-command';

const scratch = mkdtempSync(join(tmpdir(), 'tasks-export-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** A data folder with no store in it: the catalog is the builtin tasks, and none is made. */
const noStore = join(scratch, 'no-store');

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
      '--data-dir',
      noStore,
    ]);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map(jsonlTask);
    expect(lines.map((line) => [line.id, line.tools, line.source])).toEqual([
      ['scratch-last-line', ['bash', 'submit'], 'builtin'],
      ['scratch-count-lines', ['bash', 'submit'], 'builtin'],
    ]);
  });

  it('writes Harbor folders whose oracle passes and whose empty solution fails', async () => {
    const out = join(scratch, 'harbor');
    const report = await runTasksExport({ format: 'harbor', out, dataDir: noStore });
    expect(report.exported).toEqual(['scratch-last-line', 'scratch-count-lines']);
    expect(readdirSync(scratch)).not.toContain('no-store');
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
    const exported = await runCli(['tasks', 'export', '--format', 'jsonl', '--out', out], {
      TERRARIUM_DATA_DIR: noStore,
    });
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(2);
    expect(readdirSync(join(scratch, 'new', 'parents'))).toEqual(['tasks.jsonl']);
  });

  it('says in one line that a folder cannot be the JSONL file', SLOW, async () => {
    const out = join(scratch, 'a-folder');
    mkdirSync(out);
    const refused = await runCli(['tasks', 'export', '--format', 'jsonl', '--out', out], {
      TERRARIUM_DATA_DIR: noStore,
    });
    expectOneLineFailure(refused, `cannot write ${out}: it is a folder, not a file`);
    expect(readdirSync(out)).toEqual([]);
  });

  it('says in one line that a file cannot be the Harbor folder, and leaves it', SLOW, async () => {
    const out = join(scratch, 'a-file');
    writeFileSync(out, 'kept\n');
    const refused = await runCli(['tasks', 'export', '--format', 'harbor', '--out', out], {
      TERRARIUM_DATA_DIR: noStore,
    });
    expectOneLineFailure(refused, `cannot write ${out}: it is a file, not a folder`);
    expect(readFileSync(out, 'utf8')).toBe('kept\n');
  });
});

/** A task posted to the environment server: saved in the data folder's store. */
const MAKE_FILE = {
  id: 'make-file',
  goal: 'Create /made.txt containing "made".',
  world: { id: 'scratch' },
  verifier: {
    checks: [{ check: { kind: 'file-equals', path: '/made.txt', content: 'made\n' } }],
  },
  oracle: ['echo made > /made.txt'],
  provenance: { source: 'posted', trajectory: null, steps: [] },
};

describe('terrarium tasks export of the tasks the environment server serves', () => {
  const SLOW = { timeout: 120_000 };
  const ALL = ['scratch-last-line', 'scratch-count-lines', 'make-file'];

  it(
    'writes a posted task, through the server that holds the folder, then from its store',
    SLOW,
    async () => {
      const dataDir = await seededDataDir('tasks-catalog');
      const serve = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      const env = { TERRARIUM_DATA_DIR: dataDir };
      try {
        const url = await waitForServeUrl(serve);
        const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
        const posted = await fetch(`${url}/v1/tasks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(MAKE_FILE),
        });
        expect(posted.status).toBe(201);
        // Before, `tasks export` wrote the builtin tasks only: a posted or generated task was in
        // GET /v1/tasks and nowhere on disk.
        const out = join(scratch, 'served');
        const served = await runCli(
          ['tasks', 'export', '--format', 'harbor', '--out', out, '--json'],
          env,
        );
        expect([served.code, served.stderr]).toEqual([0, '']);
        expect(JSON.parse(served.stdout)).toEqual({
          format: 'harbor',
          out,
          exported: ALL,
          rejected: [],
        });
        expect([
          reward(join(out, 'make-file'), 'served-oracle', true),
          reward(join(out, 'make-file'), 'served-empty', false),
        ]).toEqual([1, 0]);
        const unknown = await runCli(
          [
            'tasks',
            'export',
            '--format',
            'jsonl',
            '--out',
            join(scratch, 'x.jsonl'),
            '--task',
            'nope',
          ],
          env,
        );
        expectOneLineFailure(unknown, `the server at ${url} could not export tasks: no task nope`);
      } finally {
        serve.kill('SIGTERM');
        await exitOf(serve);
      }
      // The server stopped: the same catalog is read from the store it saved the task in.
      const file = join(scratch, 'stored.jsonl');
      const stored = await runCli(
        ['tasks', 'export', '--format', 'jsonl', '--out', file, '--task', 'make-file'],
        env,
      );
      expect([stored.code, stored.stderr]).toEqual([0, '']);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map(jsonlTask);
      expect(lines).toEqual([{ id: 'make-file', source: 'posted', tools: ['bash', 'submit'] }]);
    },
  );
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
