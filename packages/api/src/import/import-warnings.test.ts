import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRecord, TAU_BENCH_AIRLINE, textFile } from '../testing/sample-files';
import { TRAJECTORY_LINKS_KEY, trajectoryLinks } from '@terrarium/schema';
import { importFiles } from './import-files';

const FORMATS_FIXTURES = fileURLToPath(new URL('../../../formats/fixtures/', import.meta.url));

describe('importFiles warns about recognized files that give 0 transitions', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it(
    'names the file and the reason; files with transitions get no warning',
    { timeout: 120_000 },
    async () => {
      // A real mini-swe-agent run (MIT fixture) cut after the first command, before any output.
      const messages: unknown = JSON.parse(
        readFileSync(`${FORMATS_FIXTURES}mini-swe-agent/github_issue.traj.json`, 'utf8'),
      );
      const cut = Array.isArray(messages) ? messages.slice(0, 3) : [];
      const terminus = readFileSync(
        `${FORMATS_FIXTURES}atif-terminus2-raw.trajectory.json`,
        'utf8',
      );
      const report = await importFiles(
        store,
        [
          textFile('cut.traj.json', JSON.stringify(cut, null, 2)),
          textFile('trajectory.json', terminus),
        ],
        { dataset: 'warned' },
      );
      expect(report).toEqual({
        dataset: 'warned',
        format: 'mixed',
        trajectories: 2,
        transitions: 3,
        quarantined: 0,
        errors: [],
        warnings: [
          {
            file: 'cut.traj.json',
            reason:
              'recognized as mini-swe-agent but yields 0 transitions: none of 1 action has an observation',
          },
        ],
      });
    },
  );
  it(
    'judges each file on its own: one after a file with transitions is warned about too',
    { timeout: 120_000 },
    async () => {
      const messages: unknown = JSON.parse(
        readFileSync(`${FORMATS_FIXTURES}mini-swe-agent/github_issue.traj.json`, 'utf8'),
      );
      const cut = Array.isArray(messages) ? messages.slice(0, 3) : [];
      const terminus = readFileSync(
        `${FORMATS_FIXTURES}atif-terminus2-raw.trajectory.json`,
        'utf8',
      );
      // The order of the test above, reversed: the ATIF file's 3 transitions came first, and were
      // counted as the cut run's, which then had no warning.
      const report = await importFiles(
        store,
        [
          textFile('trajectory.json', terminus),
          textFile('cut.traj.json', JSON.stringify(cut, null, 2)),
        ],
        { dataset: 'warned-second' },
      );
      expect(report.warnings).toEqual([
        {
          file: 'cut.traj.json',
          reason:
            'recognized as mini-swe-agent but yields 0 transitions: none of 1 action has an observation',
        },
      ]);
    },
  );
  it(
    'keeps ATIF links through the store; the linked session id finds the subagent run',
    { timeout: 120_000 },
    async () => {
      const text = readFileSync(
        `${FORMATS_FIXTURES}atif-v1-7-copied-context.trajectory.json`,
        'utf8',
      );
      const report = await importFiles(store, [textFile('trajectory.json', text)], {
        dataset: 'linked',
      });
      expect(report.trajectories).toBe(2);
      // The embedded summarizer holds only messages, but the file as a whole has a transition.
      expect(report.warnings).toBeUndefined();
      const dataset = (await store.listDatasets()).find((entry) => entry.name === 'linked');
      const datasetId = dataset?.id ?? '';
      const main = (
        await store.listTrajectories(
          { datasetId, search: 'fix-test-cont-1' },
          { offset: 0, limit: 10 },
        )
      ).rows.find((entry) => entry.externalId === 'fix-test-cont-1');
      const detail = main === undefined ? null : await store.getTrajectory(main.id);
      const links = detail === null ? [] : trajectoryLinks(detail.metadata);
      expect(links).toEqual([
        { kind: 'subagent', sessionId: 'fix-test-cont-1-summary', path: null, stepIndex: null },
      ]);
      expect(detail?.metadata[TRAJECTORY_LINKS_KEY]).toEqual(links);
      // What the replay view's link opens: the dataset's list searched by the session id.
      const found = await store.listTrajectories(
        { datasetId, search: links[0]?.sessionId ?? '' },
        { offset: 0, limit: 10 },
      );
      expect(found.rows.map((entry) => entry.externalId)).toEqual(['fix-test-cont-1-summary']);
    },
  );
});

describe('importFiles warns about tool-call arguments that are not JSON', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it(
    'names file, line and field of each, and stores the text as it was written',
    { timeout: 120_000 },
    async () => {
      // Two real tau-bench runs as OpenAI-messages JSONL, the second's first call cut off before
      // its closing brace.
      const runs: unknown = JSON.parse(readFileSync(TAU_BENCH_AIRLINE, 'utf8'));
      const [first = '', second = ''] = (Array.isArray(runs) ? runs.slice(2, 4) : []).map(
        (run: unknown) =>
          JSON.stringify({
            messages: typeof run === 'object' && run !== null ? Reflect.get(run, 'traj') : null,
          }),
      );
      const whole = String.raw`"arguments":"{\"user_id\":\"sofia_kim_7287\"}"`;
      expect(second.split(whole)).toHaveLength(2);
      const text = `${first}\n${second.replace(whole, `${whole.slice(0, -2)}"`)}\n`;

      const report = await importFiles(store, [textFile('runs.jsonl', text)], {
        dataset: 'cut-calls',
      });

      expect(report).toEqual({
        dataset: 'cut-calls',
        format: 'openai-messages',
        trajectories: 2,
        transitions: 27,
        quarantined: 0,
        errors: [],
        warnings: [
          {
            file: 'runs.jsonl',
            line: 2,
            reason: 'messages[6].tool_calls[0].function.arguments: not valid JSON (kept as text)',
          },
        ],
      });
      const dataset = (await store.listDatasets()).find((entry) => entry.name === 'cut-calls');
      const rows = await store.listTrajectories(
        { datasetId: dataset?.id ?? '' },
        { offset: 0, limit: 10 },
      );
      const cut = rows.rows.find((row) => row.externalId === 'runs.jsonl:2');
      const steps = cut === undefined ? null : await store.getSteps(cut.id, 0, 100);
      expect(steps?.steps.find((step) => step.action.type === 'tool_call')?.action).toEqual({
        type: 'tool_call',
        name: 'get_user_details',
        arguments: '{"user_id":"sofia_kim_7287"',
        callId: 'call_I3WHVqSB8LfMWiSb44Q4ohBh',
      });
    },
  );

  it(
    'lists the first 1,000 and counts the rest, so a file broken throughout keeps a small report',
    { timeout: 120_000 },
    async () => {
      const good = chatRecord('x');
      const broken = good.replace(String.raw`"{\"path\":\".\"}"`, String.raw`"{\"path\":"`);
      expect(broken).not.toBe(good);
      const lines = Array.from({ length: 1003 }, (_, n) => broken.replace('"x"', `"x${n}"`));

      const report = await importFiles(store, [textFile('broken.jsonl', `${lines.join('\n')}\n`)], {
        dataset: 'broken-calls',
      });

      expect(report.trajectories).toBe(1003);
      const warnings = report.warnings ?? [];
      expect(warnings).toHaveLength(1001);
      expect([warnings[0], warnings[999], warnings[1000]]).toEqual([
        {
          file: 'broken.jsonl',
          line: 1,
          reason: 'messages[2].tool_calls[0].function.arguments: not valid JSON (kept as text)',
        },
        {
          file: 'broken.jsonl',
          line: 1000,
          reason: 'messages[2].tool_calls[0].function.arguments: not valid JSON (kept as text)',
        },
        { file: '*', reason: '3 more warnings not listed' },
      ]);
    },
  );
});
