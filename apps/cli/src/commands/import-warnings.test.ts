import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli';
import { seededDataDir } from '@terrarium/db/test-store';

const FIXTURES = fileURLToPath(new URL('../../../../packages/formats/fixtures/', import.meta.url));

describe('terrarium import: files that give 0 transitions', () => {
  it(
    'prints a warning naming the file and the reason, also in --json',
    { timeout: 120_000 },
    async () => {
      const folder = await mkdtemp(path.join(tmpdir(), 'terrarium-warn-'));
      // The real mini-swe-agent run (MIT fixture) cut before the environment answered its command.
      const messages: unknown = JSON.parse(
        await readFile(`${FIXTURES}mini-swe-agent/github_issue.traj.json`, 'utf8'),
      );
      const file = path.join(folder, 'cut.traj.json');
      await writeFile(file, JSON.stringify(Array.isArray(messages) ? messages.slice(0, 3) : []));
      const dataDir = await seededDataDir('warn-data');
      const reason =
        'recognized as mini-swe-agent but yields 0 transitions: none of 1 action has an observation';

      const json = await runCli(['import', file, '--json', '--data-dir', dataDir]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({
        dataset: 'cut.traj',
        format: 'mini-swe-agent',
        trajectories: 1,
        transitions: 0,
        quarantined: 0,
        errors: [],
        warnings: [{ file: 'cut.traj.json', reason }],
      });

      const text = await runCli(['import', file, '--dataset', 'again', '--data-dir', dataDir]);
      expect(text.stderr).toContain(`warning: cut.traj.json: ${reason}\n`);
    },
  );
});

describe('terrarium import: what a folder holds besides trajectories', () => {
  it('names the files it leaves out, and imports the rest', { timeout: 120_000 }, async () => {
    const folder = path.join(await mkdtemp(path.join(tmpdir(), 'terrarium-left-out-')), 'run');
    await mkdir(folder);
    await copyFile(`${FIXTURES}mini-swe-agent/github_issue.traj.json`, `${folder}/a.traj.json`);
    await writeFile(path.join(folder, 'LICENSE'), 'MIT');
    await writeFile(path.join(folder, 'config.yaml'), 'model: x\n');
    const dataDir = await seededDataDir('left-out-data');

    const result = await runCli(['import', folder, '--json', '--data-dir', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'Left out as licences, notes, configs or hidden files (name a file to import it anyway): run/LICENSE, run/config.yaml.\n',
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ dataset: 'run', trajectories: 1 });
  });
});

describe('terrarium import: tool-call arguments that are not JSON', () => {
  it(
    'imports the record and prints a warning naming file, line and field, also in --json',
    { timeout: 120_000 },
    async () => {
      const folder = await mkdtemp(path.join(tmpdir(), 'terrarium-args-'));
      // The fixture's first line (parallel weather calls), its Paris call cut off as a stream that
      // stopped early leaves it, after a line left whole.
      const [weather = ''] = (await readFile(`${FIXTURES}openai-messages.jsonl`, 'utf8')).split(
        '\n',
      );
      const whole = String.raw`"arguments": "{\"city\": \"Paris\", \"unit\": \"celsius\"}"`;
      expect(weather.split(whole)).toHaveLength(2);
      const cut = weather.replace(whole, String.raw`"arguments": "{\"city\": \"Paris\""`);
      const file = path.join(folder, 'weather.jsonl');
      await writeFile(file, `${weather}\n${cut}\n`);
      const dataDir = await seededDataDir('args-data');
      const reason = 'messages[2].tool_calls[0].function.arguments: not valid JSON (kept as text)';

      const json = await runCli(['import', file, '--json', '--data-dir', dataDir]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({
        dataset: 'weather',
        format: 'openai-messages',
        trajectories: 2,
        transitions: 4,
        quarantined: 0,
        errors: [],
        warnings: [{ file: 'weather.jsonl', line: 2, reason }],
      });

      const text = await runCli(['import', file, '--dataset', 'again', '--data-dir', dataDir]);
      expect(text.code).toBe(0);
      expect(text.stderr).toBe(`warning: weather.jsonl:2: ${reason}\n`);
    },
  );
});
