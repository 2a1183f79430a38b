import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:http';
import { openStore, readServerInfo, removeServerInfo, writeServerInfo } from '@terrarium/db';
import { DatasetSummary } from '@terrarium/schema';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { exitOf, runCli, startCli, waitForServeUrl } from './testing/run-cli';
import { sharedDataPath } from '@terrarium/schema/testing';
import { seededDataDir } from '@terrarium/db/test-store';

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
const TAU2_AIRLINE = sharedDataPath(
  'tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json',
);
const ALL_PREDS = sharedDataPath(
  'swe-agent/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/all_preds.jsonl',
);
const KNOWN_FORMATS =
  'agentworldbench, atif, intercode, intercode-human-sql, mini-swe-agent, openai-messages, openhands, sharegpt, swe-agent, tau-bench-v1, tau2-bench';
const SLOW = { timeout: 240_000 };

function chatRecord(id: string): string {
  return JSON.stringify({
    id,
    messages: [
      { role: 'user', content: 'How many files are here?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `${id}-c`, type: 'function', function: { name: 'ls', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: `${id}-c`, content: 'a.txt\nb.txt' },
      { role: 'assistant', content: 'Two.' },
    ],
  });
}

/** The status of the newest import job into `dataset` in an `imports.list` answer, or null. */
function statusOfJob(answer: unknown, dataset: string): string | null {
  const result = isObject(answer) ? answer['result'] : undefined;
  const jobs = isObject(result) ? result['data'] : undefined;
  if (!Array.isArray(jobs)) return null;
  const job: unknown = jobs.find(
    (found: unknown) => isObject(found) && found['dataset'] === dataset,
  );
  const status = isObject(job) ? job['status'] : undefined;
  return typeof status === 'string' ? status : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function tempDir(label: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `terrarium-cli-${label}-`));
}

describe('terrarium CLI', () => {
  let samples: string;
  beforeAll(async () => {
    samples = await tempDir('samples');
    await writeFile(
      path.join(samples, 'chat.jsonl'),
      `${chatRecord('a')}\n{"messages": [oops\n${chatRecord('b')}\n`,
    );
    await writeFile(path.join(samples, 'mystery.dat'), 'col1;col2\n1;2\n');
  });

  it('prints help for the program and every command', SLOW, async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--data-dir <dir>/);
    for (const command of ['import', 'datasets', 'serve']) expect(help.stdout).toContain(command);
    const importHelp = await runCli(['import', '--help']);
    expect(importHelp.code).toBe(0);
    expect(importHelp.stdout).toContain('--format <format>');
    expect(importHelp.stdout).toContain('--dataset <name>');
  });

  it('imports the tau2 retail run with exact JSON, then lists it', SLOW, async () => {
    // A folder that does not exist yet, as on a new user's first import (the other tests start
    // from the migrated test cluster).
    const dataDir = path.join(await tempDir('data'), 'new');
    const imported = await runCli(['import', TAU2_RETAIL, '--json', '--data-dir', dataDir]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      dataset: 'gpt-4.1_retail_defautl_gpt-4.1_1trials',
      format: 'tau2-bench',
      trajectories: 40,
      transitions: 299,
      quarantined: 0,
      errors: [],
    });

    // The folder also comes from the environment.
    const listed = await runCli(['datasets', '--json'], { TERRARIUM_DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    const datasets = DatasetSummary.array().parse(JSON.parse(listed.stdout));
    expect(
      datasets.map((dataset) => [dataset.name, dataset.trajectories, dataset.transitions]),
    ).toEqual([['gpt-4.1_retail_defautl_gpt-4.1_1trials', 40, 299]]);
    const table = await runCli(['datasets', '--data-dir', dataDir]);
    expect(table.stdout.split('\n')[0]).toMatch(/^name +trajectories +transitions/);

    // A reader that stops early (`| head -1`, `| true`): the command ends quietly (walk 40: an
    // EPIPE stack trace), with the exit code it would have had.
    const piped = startCli(['datasets', '--data-dir', dataDir]);
    piped.stdout?.destroy();
    let stderr = '';
    piped.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    expect(await exitOf(piped)).toBe(0);
    expect(stderr).toBe('');
  });

  it('exits 2 when records were quarantined and 1 when nothing was imported', SLOW, async () => {
    const dataDir = await seededDataDir('cli-data');
    const partial = await runCli([
      'import',
      path.join(samples, 'chat.jsonl'),
      '--dataset',
      'chat',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(partial.code).toBe(2);
    const report: unknown = JSON.parse(partial.stdout);
    expect(report).toMatchObject({
      dataset: 'chat',
      format: 'openai-messages',
      trajectories: 2,
      quarantined: 1,
      errors: [{ file: 'chat.jsonl', line: 2 }],
    });

    const nothing = await runCli([
      'import',
      path.join(samples, 'mystery.dat'),
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(nothing.code).toBe(1);
    expect(JSON.parse(nothing.stdout)).toMatchObject({
      dataset: 'mystery',
      format: null,
      trajectories: 0,
      errors: [{ file: 'mystery.dat' }],
      unknownFormatFiles: 1,
    });
    const listed = await runCli(['datasets', '--json', '--data-dir', dataDir]);
    expect(
      DatasetSummary.array()
        .parse(JSON.parse(listed.stdout))
        .map((d) => d.name),
    ).toEqual(['chat']);

    // A folder: the summary counts the file not read beside the record quarantined, and says it
    // is in no known format (walk: "1 file could not be read to its end", of a CSV nothing of
    // which was read).
    const folder = await runCli(['import', samples, '--dataset', 'both', '--data-dir', dataDir]);
    expect(folder.code).toBe(2);
    expect(folder.stdout).toBe(
      [
        'Imported 2 trajectories, 2 transitions (openai-messages) into dataset "both".',
        '1 bad record quarantined.',
        '1 file is in no known format (named below).',
        '',
      ].join('\n'),
    );
    expect(folder.stderr).toContain(
      `mystery.dat: unknown format: it matches none of the known formats (${KNOWN_FORMATS})\n`,
    );

    // A real JSON file in no known format (SWE-agent's predictions): the reason names the keys
    // of its first record.
    const preds = await runCli(['import', ALL_PREDS, '--data-dir', dataDir]);
    expect(preds.code).toBe(1);
    expect([preds.stdout, preds.stderr]).toEqual([
      [
        'Nothing was imported into dataset "all_preds".',
        '1 file is in no known format (named below).',
        '',
      ].join('\n'),
      `all_preds.jsonl: unknown format: it matches none of the known formats (${KNOWN_FORMATS}); its first record has the keys model_name_or_path, instance_id, model_patch\n`,
    ]);
  });

  it('rejects an unknown --format naming the option', SLOW, async () => {
    const result = await runCli(['import', TAU2_RETAIL, '--format', 'csv']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("option '--format <format>' argument 'csv' is invalid");
  });

  it('imports through a running server that owns the folder', SLOW, async () => {
    const dataDir = await seededDataDir('cli-served');
    const serve = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      const url = await waitForServeUrl(serve);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await readServerInfo(dataDir)).toMatchObject({ url, pid: serve.pid });

      const imported = await runCli(['import', TAU2_AIRLINE, '--dataset', 'airline', '--json'], {
        TERRARIUM_DATA_DIR: dataDir,
      });
      expect(imported.code).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ trajectories: 20, transitions: 148 });

      // The server wrote its program token into the folder, readable by this user only.
      const tokenFile = path.join(dataDir, 'token');
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      const token = (await readFile(tokenFile, 'utf8')).trim();
      expect((await fetch(`${url}/api/datasets`)).status).toBe(401);
      const served = DatasetSummary.array().parse(
        await (
          await fetch(`${url}/api/datasets`, { headers: { authorization: `Bearer ${token}` } })
        ).json(),
      );
      expect(served.map((dataset) => [dataset.name, dataset.trajectories])).toEqual([
        ['airline', 20],
      ]);
      const listed = await runCli(['datasets', '--json', '--data-dir', dataDir]);
      expect(
        DatasetSummary.array()
          .parse(JSON.parse(listed.stdout))
          .map((d) => d.name),
      ).toEqual(['airline']);

      // Ctrl-C while the server imports an upload: said, and nothing of the file is kept (walk
      // 40: pnpm's "exit code 130" was all the user read). 50,000 chat records, seconds of work.
      const big = path.join(await tempDir('big'), 'big.jsonl');
      await writeFile(
        big,
        `${Array.from({ length: 50_000 }, (_, n) => chatRecord(`big-${n}`)).join('\n')}\n`,
      );
      const importing = startCli(['import', big, '--dataset', 'big'], {
        TERRARIUM_DATA_DIR: dataDir,
      });
      let stderr = '';
      importing.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      // The status of the server's import job into `big`, as its Import page reads it.
      const bigJob = async () => {
        const answer = await fetch(`${url}/trpc/imports.list`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return statusOfJob(await answer.json(), 'big');
      };
      await vi.waitFor(async () => expect(await bigJob()).toBe('running'), {
        timeout: 60_000,
        interval: 100,
      });
      importing.kill('SIGINT');
      expect(await exitOf(importing)).toBe(130);
      expect(stderr).toBe(
        'terrarium: canceling the import of big.jsonl on the server… (Ctrl-C again to leave without waiting)\n' +
          'terrarium: import interrupted: the server keeps nothing of big.jsonl\n',
      );
      await vi.waitFor(async () => expect(await bigJob()).toBe('canceled'), { timeout: 30_000 });
      const after = await runCli(['datasets', '--json', '--data-dir', dataDir]);
      expect(
        DatasetSummary.array()
          .parse(JSON.parse(after.stdout))
          .map((d) => d.name),
      ).toEqual(['airline']);
    } finally {
      serve.kill('SIGTERM');
    }
    expect(await exitOf(serve)).toBe(0);
    expect(await readServerInfo(dataDir)).toBeNull();
  });

  it(
    'an import through the server outlives a restart of the server and a killed CLI',
    { timeout: 360_000 },
    async () => {
      const dataDir = await seededDataDir('cli-outlives');
      let serve = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      const url = await waitForServeUrl(serve);
      const port = new URL(url).port;
      const token = (await readFile(path.join(dataDir, 'token'), 'utf8')).trim();
      const big = path.join(await tempDir('outlives'), 'big.jsonl');
      await writeFile(
        big,
        `${Array.from({ length: 50_000 }, (_, n) => chatRecord(`big-${n}`)).join('\n')}\n`,
      );
      const jobOf = async (dataset: string) => {
        const answer = await fetch(`${url}/trpc/imports.list`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return statusOfJob(await answer.json(), dataset);
      };
      try {
        // The server stops while it imports the CLI's upload, and starts again on its port: the
        // CLI waits for it, and the job goes on from its last stored part.
        const importing = startCli(['import', big, '--dataset', 'restarted'], {
          TERRARIUM_DATA_DIR: dataDir,
        });
        let stdout = '';
        let stderr = '';
        importing.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        importing.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        await vi.waitFor(async () => expect(await jobOf('restarted')).toBe('running'), {
          timeout: 60_000,
          interval: 100,
        });
        serve.kill('SIGTERM');
        expect(await exitOf(serve)).toBe(0);
        serve = startCli(['serve', '--port', port, '--data-dir', dataDir]);
        expect(await waitForServeUrl(serve)).toBe(url);
        expect(await exitOf(importing)).toBe(0);
        expect(stdout).toBe(
          `Imported 50,000 trajectories, 50,000 transitions (openai-messages) into dataset "restarted" through the server at ${url}.\n`,
        );
        expect(stderr).toBe(
          `terrarium: the server at ${url} stopped answering; the import of big.jsonl is its job and goes on when it is back: waiting for it…\n`,
        );

        // A CLI killed once its upload is stored: the server imports the file all the same.
        const killed = startCli(['import', big, '--dataset', 'orphaned'], {
          TERRARIUM_DATA_DIR: dataDir,
        });
        await vi.waitFor(async () => expect(await jobOf('orphaned')).toBe('running'), {
          timeout: 60_000,
          interval: 100,
        });
        killed.kill('SIGKILL');
        await vi.waitFor(async () => expect(await jobOf('orphaned')).toBe('done'), {
          timeout: 120_000,
          interval: 250,
        });
        const listed = await runCli(['datasets', '--json', '--data-dir', dataDir]);
        expect(
          DatasetSummary.array()
            .parse(JSON.parse(listed.stdout))
            .map((dataset) => [dataset.name, dataset.trajectories]),
        ).toEqual([
          ['restarted', 50_000],
          ['orphaned', 50_000],
        ]);

        // Ctrl-C while the server cannot answer the cancel (stopped), then Ctrl-C again: the CLI
        // leaves at once and says the import may go on (the second one exited without a word).
        const impatient = startCli(['import', big, '--dataset', 'impatient'], {
          TERRARIUM_DATA_DIR: dataDir,
        });
        let said = '';
        impatient.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
        await vi.waitFor(async () => expect(await jobOf('impatient')).toBe('running'), {
          timeout: 60_000,
          interval: 100,
        });
        serve.kill('SIGSTOP');
        try {
          impatient.kill('SIGINT');
          await vi.waitFor(() => expect(said).toContain('Ctrl-C again'), { timeout: 10_000 });
          impatient.kill('SIGINT');
          expect(await exitOf(impatient)).toBe(130);
        } finally {
          serve.kill('SIGCONT');
        }
        expect(said).toBe(
          'terrarium: canceling the import of big.jsonl on the server… (Ctrl-C again to leave without waiting)\n' +
            'terrarium: import interrupted without waiting for the cancel: big.jsonl may go on importing on the server (its Import page shows it)\n',
        );
        // Whether the cancel the stopped server finds on waking ends the job first is its own
        // business; the test only waits for the job to end before the server stops.
        await vi.waitFor(
          async () => expect(['done', 'canceled']).toContain(await jobOf('impatient')),
          { timeout: 120_000, interval: 250 },
        );
      } finally {
        serve.kill('SIGTERM');
        await exitOf(serve);
      }
    },
  );

  it(
    'says when the server that holds the folder does not answer, instead of calling it a stranger',
    SLOW,
    async () => {
      const dataDir = await seededDataDir('cli-silent');
      // This process plays a server busy past the CLI's wait: it holds the folder, its server-info
      // file and token say where it listens, and it accepts connections but answers none.
      const holder = await openStore({ dataDir });
      const silent = createServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const address = silent.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const url = `http://127.0.0.1:${address.port}`;
      await writeServerInfo(dataDir, { url, pid: process.pid });
      await writeFile(path.join(dataDir, 'token'), 'a-token-of-thirty-two-characters\n');
      try {
        const result = await runCli(['datasets', '--data-dir', dataDir]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `the data folder ${dataDir} is held by its Terrarium server at ${url} (pid ${process.pid}), which did not answer within 5 s: it may be busy`,
        );
      } finally {
        silent.closeAllConnections();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
        await removeServerInfo(dataDir);
        await holder.close();
      }
    },
  );

  it('refuses a folder held by another process that is not a server', SLOW, async () => {
    const dataDir = await seededDataDir('cli-held');
    const holder = await openStore({ dataDir });
    try {
      const result = await runCli(['datasets', '--data-dir', dataDir]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`the data folder ${dataDir} is in use by another process`);
    } finally {
      await holder.close();
    }
  });

  it('says in one line that a store cannot be opened, where it printed a stack', SLOW, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cli-file-store-'));
    // A file where the store's folder goes.
    await writeFile(path.join(dataDir, 'pglite'), 'not a folder\n');
    const result = await runCli(['datasets', '--data-dir', dataDir]);
    expect([result.code, result.stderr]).toEqual([
      1,
      `terrarium: cannot open the store in ${dataDir}: part of the path is a file, not a folder\n`,
    ]);
  });
});
