/// <reference types="node" />
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worldModelMessages } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  officialRows,
  readRealTrajectories,
  type OfficialRow,
} from '../bench/official-rows.testkit';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/test-server';

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })),
});

const MARKER = /^\*\*Environment Observation:\*\*\n/;
const truthOf = (row: OfficialRow) => (row.response[row.turn_idx - 1] ?? '').replace(MARKER, '');
/** The run a row was sampled from: rows of one run carry the same turn lists. */
const runOf = (row: OfficialRow) => JSON.stringify(row.prompt);

/**
 * `retrieval@DATASET` on an AgentWorldBench file imported as a dataset (one trajectory per row,
 * five rows per run): a chat names no trajectory, so retrieval leaves out the run the chat's own
 * history and action were recorded in, every copy of it, as a bench leaves out its item's.
 */
describe('/v1 retrieval@DATASET leaves the request’s own recorded run out (real tau2 retail)', () => {
  let server: TestServer;
  let rows: OfficialRow[];
  const folder = mkdtempSync(join(tmpdir(), 'awb-loo-'));
  beforeAll(async () => {
    server = await startTestServer();
    rows = officialRows((await readRealTrajectories([TAU2_RETAIL])).slice(0, 8), {
      task: 'mcp',
      firstId: 145256090131919,
      systemStr: 'You simulate the tools of a retail store.',
    });
    writeFileSync(
      join(folder, 'mcp_test.jsonl'),
      rows.map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    await importFiles(server.store, (await collectDataFiles([folder])).map(readDataFile), {
      dataset: 'awb',
    });
  }, 120_000);
  afterAll(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The answer's text, or null for an OpenAI-style miss (nothing similar outside the run). */
  async function answer(model: string, row: OfficialRow): Promise<string | null> {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({
        model,
        messages: worldModelMessages({
          systemPrompt: row.system_str,
          prompts: row.prompt,
          responses: row.response,
          currentPrompt: row.current_prompt,
          turnIdx: row.turn_idx,
        }),
      }),
    });
    if (response.status === 404) return null;
    expect(response.status).toBe(200);
    return Completion.parse(await response.json()).choices[0]?.message.content ?? '';
  }

  it('never answers a row from its own run, while replay answers every row from it', async () => {
    expect(rows.length).toBe(37);
    // Answers no other run recorded: only the row's own run could give them.
    const recordedElsewhere = (row: OfficialRow) =>
      rows.some(
        (other) =>
          runOf(other) !== runOf(row) &&
          other.response.some((response) => response.replace(MARKER, '') === truthOf(row)),
      );
    const ownOnly = rows.filter((row) => !recordedElsewhere(row));
    expect(ownOnly.length).toBe(29);
    const leaked: string[] = [];
    const replayed: string[] = [];
    let misses = 0;
    for (const row of ownOnly) {
      const retrieved = await answer('retrieval@awb', row);
      if (retrieved === null) misses++;
      if (retrieved === truthOf(row)) leaked.push(`${row.id}`);
      if ((await answer('replay@awb', row)) === truthOf(row)) replayed.push(`${row.id}`);
    }
    expect(leaked).toEqual([]);
    // 5 of these rows call a tool that no run of another task calls: retrieval answers them with the
    // nearest call of another tool, as an index built without those runs would (they were misses
    // while a left-out run still made its tool count as recorded).
    expect(misses).toBe(0);
    expect(replayed).toHaveLength(ownOnly.length);
  }, 120_000);
});
