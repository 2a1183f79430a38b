/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BenchItem } from '@terrarium/schema';
import { buildBench } from '../build-bench';
import { readSources } from '../real-data.testkit';
import {
  AGENTWORLDBENCH_KEYS,
  benchItemsFromAgentWorldBench,
  formatAgentWorldBenchLine,
  importedBenchManifest,
  parseAgentWorldBenchLine,
  toAgentWorldBenchRecord,
} from './records';

const { items: built } = buildBench({
  trajectories: await readSources(['tau2-retail', 'tau2-airline', 'swe-agent', 'intercode-bash']),
  name: 'awb',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 3,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: [],
});
const lines = built.map((item) => formatAgentWorldBenchLine(toAgentWorldBenchRecord(item)));

describe('AgentWorldBench export', () => {
  it('writes every row with exactly the AgentWorldBench keys, in order', () => {
    expect(built).toHaveLength(1740);
    for (const line of lines.slice(0, 50)) {
      expect(Object.keys(JSON.parse(line))).toEqual([...AGENTWORLDBENCH_KEYS]);
    }
  });

  it('renders tool calls as {"name", "arguments"} JSON and keeps 1-based turns', () => {
    const item = built.find((candidate) => candidate.action.type === 'tool_call');
    if (item === undefined || item.action.type !== 'tool_call') throw new Error('no tool call');
    const record = toAgentWorldBenchRecord(item);
    expect(JSON.parse(record.current_prompt)).toEqual({
      name: item.action.name,
      arguments: item.action.arguments,
    });
    expect(record.turn_idx).toBe(item.turnIndex + 1);
    expect(record.prompt).toHaveLength(item.turnIndex);
    expect(record.response).toHaveLength(item.turnIndex + 1);
    expect(record.response.at(-1)).toBe(item.real.content);
    expect(record.system_str).toContain('You are a world model');
  });
});

describe('AgentWorldBench import', () => {
  const imported = benchItemsFromAgentWorldBench(lines, 'real.jsonl');

  it('reads back every exported row of the real data without errors', () => {
    expect(imported.errors).toEqual([]);
    expect(imported.items).toHaveLength(1740);
    expect(imported.items.every((item) => BenchItem.safeParse(item).success)).toBe(true);
  });

  it('round-trips each row byte for byte', () => {
    const again = imported.items.map((item) =>
      formatAgentWorldBenchLine(toAgentWorldBenchRecord(item)),
    );
    expect(again).toEqual(lines);
  });

  it('keeps id and task, and makes the last response the real observation', () => {
    const first = imported.items[0];
    const source = built[0];
    expect(first?.id).toBe(source?.id);
    expect(first?.task).toBe(source?.task);
    expect(first?.real.content).toBe(source?.real.content);
    expect(first?.history.length).toBe(source?.history.length);
    expect(first?.action.type).toBe('command');
  });

  it('round-trips a Python-written row with non-ASCII text byte for byte', () => {
    const line =
      '{"task": "terminal_bench", "id": "tb-1", "prompt": ["echo caf\\u00e9"], ' +
      '"response": ["caf\\u00e9\\n", "done \\ud83d\\ude00\\n"], "current_prompt": "echo done", ' +
      '"system_str": "You simulate a terminal.", "turn_idx": 2, "total_turns": 4}';
    const parsed = parseAgentWorldBenchLine(line, 1, 'x.jsonl');
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.item.domain).toBe('terminal');
    expect(parsed.item.history[0]?.observation.content).toBe('café\n');
    expect(parsed.item.real.content).toBe('done 😀\n');
    expect(formatAgentWorldBenchLine(toAgentWorldBenchRecord(parsed.item))).toBe(line);
  });

  it('names file, line and field of a bad row', () => {
    const fixture = readFileSync(
      fileURLToPath(new URL('../../../formats/fixtures/agentworldbench.jsonl', import.meta.url)),
      'utf8',
    ).split('\n');
    const { items, errors } = benchItemsFromAgentWorldBench(fixture, 'fixture.jsonl');
    expect(items).toEqual([]);
    expect(errors.map((error) => error.message)).toEqual([
      'fixture.jsonl:1: response: has 2 observations for 2 earlier actions; expected 3 (the last is the real observation of current_prompt)',
      'fixture.jsonl:2: response: has 0 observations for 0 earlier actions; expected 1 (the last is the real observation of current_prompt)',
    ]);
    const missing = parseAgentWorldBenchLine('{"task": "t", "id": "a"}', 7, 'f.jsonl');
    expect(missing.ok ? null : missing.error.field).toBe('prompt');
    const wrongType = parseAgentWorldBenchLine(
      '{"task": "t", "id": "a", "prompt": ["ls", 3], "response": [], "current_prompt": "x", "system_str": null, "turn_idx": 1, "total_turns": 1}',
      8,
      'f.jsonl',
    );
    expect(wrongType.ok ? null : wrongType.error.message).toMatch(/^f\.jsonl:8: prompt\[1\]: /);
    const broken = parseAgentWorldBenchLine('{"task": ', 9, 'f.jsonl');
    expect(broken.ok ? null : broken.error.message).toMatch(/^f\.jsonl:9: not JSON: /);
  });

  it('reports a repeated id', () => {
    const { items, errors } = benchItemsFromAgentWorldBench([lines[0] ?? '', lines[0] ?? '']);
    expect(items).toHaveLength(1);
    expect(errors.map((error) => error.field)).toEqual(['id']);
  });

  it('builds a manifest for the imported file', () => {
    const manifest = importedBenchManifest(imported.items, {
      name: 'awb',
      version: 1,
      createdAt: '2026-11-29T00:00:00.000Z',
      fileName: 'real.jsonl',
    });
    expect(manifest.itemCount).toBe(1740);
    expect(manifest.byTask['intercode/bash']).toBe(1355);
  });
});
