import { createReadStream } from 'node:fs';
import type { Store } from '@terrarium/db';
import { readTrajectories } from '@terrarium/formats';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { BenchManifest } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { agentWorldBenchLines, importAgentWorldBench, linesOf, sftExport } from './bench-files';
import { buildBenchFromDatasets, requireBench } from './bench-service';
import { allBenchItems } from './read-all';

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

describe('bench files on tau2 retail', () => {
  let store: Store;
  let built: BenchManifest;
  let exported: string[];
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    built = await buildBenchFromDatasets(
      { store },
      {
        name: 'retail',
        datasets: ['retail'],
        sampling: { kind: 'agentworld' },
        seed: 0,
        devFraction: 0,
      },
    );
    exported = await collect(agentWorldBenchLines(store, 'retail'));
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it('exports one AgentWorldBench row per item', () => {
    expect(built.itemCount).toBe(194);
    expect(exported).toHaveLength(194);
    const row: unknown = JSON.parse(exported[0] ?? '');
    expect(isRecord(row) && Object.keys(row).toSorted()).toEqual([
      'current_prompt',
      'id',
      'prompt',
      'response',
      'system_str',
      'task',
      'task_text',
      'total_turns',
      'turn_idx',
    ]);
  });

  it("stores each action's arguments in the agent's order (the export and prompts use them)", async () => {
    const items = await allBenchItems(store, {
      benchId: (await requireBench(store, 'retail')).id,
    });
    const lookups = items.flatMap(({ action }) =>
      action.type === 'tool_call' &&
      action.name === 'find_user_id_by_name_zip' &&
      typeof action.arguments === 'object' &&
      action.arguments !== null
        ? [Object.keys(action.arguments)]
        : [],
    );
    // As tau2's file has them (jsonb would give zip, last_name, first_name).
    expect(lookups.length).toBeGreaterThan(0);
    expect(new Set(lookups.map((keys) => keys.join(',')))).toEqual(
      new Set(['first_name,last_name,zip']),
    );
  });

  it("gives the world model each trajectory's tools in the order the importer read them", async () => {
    const read = new Set<string>();
    for await (const event of readTrajectories(createReadStream(TAU2_RETAIL), {
      fileName: TAU2_RETAIL,
    })) {
      if (event.type === 'trajectory') read.add(JSON.stringify(event.trajectory.tools));
    }
    const items = await allBenchItems(store, {
      benchId: (await requireBench(store, 'retail')).id,
    });
    // jsonb put each tool's "required" before its "properties" (shorter keys first).
    const stored = new Set(items.map((item) => JSON.stringify(item.context.tools)));
    expect(stored.size).toBeGreaterThan(1);
    expect([...stored].filter((tools) => !read.has(tools))).toEqual([]);
  });

  it('round-trips: re-imported rows keep ids and content hash, and export byte for byte again', async () => {
    const text = `${exported.join('\n')}\n`;
    const imported = await importAgentWorldBench(store, {
      name: 'copy',
      fileName: 'retail.jsonl',
      lines: linesOf(text),
    });
    expect(imported.errors).toEqual([]);
    expect(imported.manifest).toMatchObject({
      name: 'copy',
      version: 1,
      sources: ['retail.jsonl'],
      itemCount: 194,
      // The row's task, whole: the stratum, then the official domain the official script reads.
      byTask: { 'tau2-bench/retail/mcp': 194 },
      contentHash: built.contentHash,
    });
    const original = await allBenchItems(store, {
      benchId: (await requireBench(store, 'retail')).id,
    });
    const copy = await allBenchItems(store, { benchId: (await requireBench(store, 'copy')).id });
    expect(copy.map((item) => item.id)).toEqual(original.map((item) => item.id));
    // The task text comes back: retrieval leaves an item's own task out by it.
    expect(copy.map((item) => item.context.task)).toEqual(
      original.map((item) => item.context.task),
    );
    expect(copy.every((item) => item.origin.dataset === null)).toBe(true);
    const again = await collect(agentWorldBenchLines(store, 'copy'));
    expect(again).toEqual(exported);
  });

  it('reads CRLF files the same', async () => {
    const imported = await importAgentWorldBench(store, {
      name: 'crlf',
      fileName: 'crlf.jsonl',
      lines: linesOf(exported.slice(0, 3).join('\r\n')),
    });
    expect(imported.errors).toEqual([]);
    expect(imported.manifest?.itemCount).toBe(3);
  });

  it('imports the good rows of a file and names file, line and field of the bad ones', async () => {
    const [one = '', two = '', three = '', four = ''] = exported;
    const parsed: unknown = JSON.parse(three);
    if (!isRecord(parsed) || !Array.isArray(parsed['response'])) throw new Error('bad export');
    const turn = typeof parsed['turn_idx'] === 'number' ? parsed['turn_idx'] : 0;
    // Fewer responses than turn_idx: the row holds no real observation for its turn.
    const shortResponse = JSON.stringify({
      ...parsed,
      response: parsed['response'].slice(0, turn - 1),
    });
    const text = [one, '{"task": "tau2-bench/retail", oops', two, shortResponse, four].join('\n');
    const imported = await importAgentWorldBench(store, {
      name: 'partly',
      fileName: 'partly.jsonl',
      lines: linesOf(text),
    });
    expect(imported.manifest?.itemCount).toBe(3);
    expect(imported.errors.map((error) => error.line)).toEqual([2, 4]);
    expect(imported.errors[0]?.message).toMatch(/^partly\.jsonl:2: not JSON: /);
    expect(turn).toBeGreaterThan(1);
    expect(imported.errors[1]?.message).toBe(
      `partly.jsonl:4: response: has ${turn - 1} entries; turn_idx ${turn} needs entry ${turn} (the real observation)`,
    );
  });

  it('stores nothing when no row can be read', async () => {
    const imported = await importAgentWorldBench(store, {
      name: 'empty',
      fileName: 'bad.jsonl',
      lines: linesOf('[1, 2]\n'),
    });
    expect(imported).toEqual({
      manifest: null,
      errors: [
        {
          file: 'bad.jsonl',
          line: 1,
          field: null,
          reason: 'not a JSON object',
          message: 'bad.jsonl:1: not a JSON object',
        },
      ],
    });
    expect((await store.listBenches()).map((bench) => bench.manifest.name)).not.toContain('empty');
  });

  it('exports SFT data that keeps every bench item out', async () => {
    // A bench on part of the dataset: 20 items, so most trajectories are left for training.
    const subset = await buildBenchFromDatasets(
      { store },
      {
        name: 'subset',
        datasets: ['retail'],
        sampling: { kind: 'agentworld' },
        seed: 0,
        devFraction: 0,
        maxItemsPerTask: 20,
      },
    );
    const sft = await sftExport(store, {
      bench: 'subset',
      datasets: ['retail'],
      includeReasoning: false,
    });
    expect(subset.itemCount).toBe(20);
    // Measured: the 20 items come from 15 of the 40 trajectories; of the other 25, records from
    // the first transition sharing a 13-gram with a bench observation on are cut (catalogue and
    // user records recur across tasks), which leaves 48 records and no leaked item.
    expect({ ...sft, lines: sft.lines.length }).toEqual({
      lines: 48,
      trajectoriesExcluded: 15,
      recordsDropped: 134,
      leakedItems: 0,
    });
    const record: unknown = JSON.parse(sft.lines[0] ?? '');
    expect(isRecord(record) && Object.keys(record)).toEqual(['messages']);
  });
});
