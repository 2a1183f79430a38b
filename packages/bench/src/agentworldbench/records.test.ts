/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BenchItem } from '@terrarium/schema';
import { z } from 'zod';
import { buildBench } from '../build-bench';
import { readDataset, readSources } from '../real-data.testkit';
import { agentWorldBenchExportLines } from './export-lines';
import { officialRows } from './official-rows.testkit';
import {
  AGENTWORLDBENCH_KEYS,
  benchItemsFromAgentWorldBench,
  formatAgentWorldBenchLine,
  importedBenchManifest,
  parseAgentWorldBenchLine,
  taskAndDomain,
  toAgentWorldBenchRecord,
} from './records';

const { items: built } = buildBench({
  trajectories: await readSources(['tau2-retail', 'tau2-airline', 'swe-agent']),
  name: 'awb',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 3,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: [],
});
const lines = agentWorldBenchExportLines(built);

describe('AgentWorldBench export', () => {
  it('writes every row with exactly the AgentWorldBench keys, in order, then its task text', () => {
    expect(built).toHaveLength(385);
    // The official script scores a row as the part of `task` after the last `/`: an official
    // domain for each of these, the stratum kept in front of it.
    expect(countBy(lines.map(taskOf))).toEqual({
      'swe-agent/ctf/terminal': 43,
      'swe-agent/swe': 64,
      'tau2-bench/airline/mcp': 84,
      'tau2-bench/retail/mcp': 194,
    });
    for (const line of lines) {
      expect(Object.keys(JSON.parse(line))).toEqual([...AGENTWORLDBENCH_KEYS, 'task_text']);
    }
    // Every item of these sources has a task text, and the row carries it whole.
    expect(lines.map((line) => Reflect.get(JSON.parse(line), 'task_text'))).toEqual(
      built.map((item) => item.context.task),
    );
  });

  it('writes the documented shape: full lists, current_prompt = prompt[turn_idx-1], markers', () => {
    const item = built.find(
      (candidate) => candidate.action.type === 'tool_call' && candidate.turnIndex === 0,
    );
    if (item === undefined || item.action.type !== 'tool_call') throw new Error('no tool call');
    const row = AgentWorldBenchRowJson.parse(JSON.parse(lines[built.indexOf(item)] ?? ''));
    expect(row.turn_idx).toBe(1);
    // The first turn's row still carries the whole trajectory, as the official files do.
    expect(row.prompt).toHaveLength(item.totalTurns);
    expect(row.response).toHaveLength(item.totalTurns);
    expect(row.current_prompt).toBe(row.prompt[0]);
    expect(row.current_prompt).toBe(
      `### Turn 1\n**Action:**\n${JSON.stringify({ name: item.action.name, arguments: item.action.arguments })}`,
    );
    expect(row.response[0]).toBe(`**Environment Observation:**\n${item.real.content}`);
    expect(row.system_str).toContain('You are a world model');
  });

  it('keeps lists ending at the turn when the row has no trajectory to draw on', () => {
    const item = built.find((candidate) => candidate.turnIndex === 3);
    if (item === undefined) throw new Error('no fourth turn');
    const record = toAgentWorldBenchRecord(item);
    expect(record.prompt).toHaveLength(4);
    expect(record.response).toHaveLength(4);
    expect(record.prompt[2]?.startsWith('### Turn 3\n**Action:**\n')).toBe(true);
    expect(record.turn_idx).toBe(4);
  });
});

function manifest(items: BenchItem[]): string {
  return importedBenchManifest(items, {
    name: 'awb',
    version: 1,
    createdAt: '2026-11-29T00:00:00.000Z',
    fileName: 'real.jsonl',
  }).contentHash;
}

function taskOf(line: string): string {
  return /^\{"task": "([^"]*)", /.exec(line)?.[1] ?? '';
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe('AgentWorldBench import of an export', () => {
  const imported = benchItemsFromAgentWorldBench(lines, 'real.jsonl');

  it('reads back every exported row without errors, ids, domains and turns kept', () => {
    expect(imported.errors).toEqual([]);
    expect(imported.items.map((item) => item.id)).toEqual(built.map((item) => item.id));
    expect(imported.items.every((item) => BenchItem.safeParse(item).success)).toBe(true);
    expect(imported.items.map((item) => item.turnIndex)).toEqual(
      built.map((item) => item.turnIndex),
    );
    // SWE-agent's CTF runs are terminal work: their rows end in `terminal`, not in `ctf` (which
    // would read back as function calling, the domain of names nothing else claims).
    expect(imported.items.map((item) => item.domain)).toEqual(built.map((item) => item.domain));
    // The row's task is the item's, whole: airline and retail stay apart.
    expect(imported.items.map((item) => item.task)).toEqual(lines.map(taskOf));
    expect(countBy(imported.items.map((item) => `${item.task} ${item.domain}`))).toEqual({
      'swe-agent/ctf/terminal terminal': 43,
      'swe-agent/swe swe': 64,
      'tau2-bench/airline/mcp tool': 84,
      'tau2-bench/retail/mcp tool': 194,
    });
  });

  it('is the same bench: same content hash, and it exports to the same bytes', () => {
    expect(manifest(imported.items)).toBe(manifest(built));
    const once = agentWorldBenchExportLines(imported.items);
    expect(once).toEqual(lines);
  });
});

describe('taskAndDomain', () => {
  it('takes the domain from the last part, as the official script does, and the task whole', () => {
    expect(taskAndDomain('mcp')).toEqual({ task: 'mcp', domain: 'tool' });
    expect(taskAndDomain('tau2-bench/airline/mcp')).toEqual({
      task: 'tau2-bench/airline/mcp',
      domain: 'tool',
    });
    expect(taskAndDomain('intercode/bash/terminal')).toEqual({
      task: 'intercode/bash/terminal',
      domain: 'terminal',
    });
    expect(taskAndDomain('swe-agent/swe')).toEqual({ task: 'swe-agent/swe', domain: 'swe' });
  });
});

const retail = await readDataset('tau2-retail');
// Ids around 2^53: the later ones cannot be held by a JavaScript number.
const official = officialRows(retail.slice(0, 12), {
  task: 'mcp',
  firstId: 9007199254740970n,
  systemStr: 'You simulate the tools of a retail store.',
});

describe('AgentWorldBench import of rows in the official shape (real tau2 retail)', () => {
  const { items, errors } = benchItemsFromAgentWorldBench(
    official.map((row) => row.line),
    'mcp_test.jsonl',
  );

  it('imports every row, ids exact even above 2^53', () => {
    expect(errors).toEqual([]);
    expect(items).toHaveLength(official.length);
    expect(items).toHaveLength(57);
    expect(items[0]?.id).toBe('9007199254740970');
    expect(items.at(-1)?.id).toBe('9007199254741026');
    expect(new Set(items.map((item) => item.task))).toEqual(new Set(['mcp']));
    expect(new Set(items.map((item) => item.domain))).toEqual(new Set(['tool']));
  });

  it('slices the full lists by turn_idx: history before it, real observation at it', () => {
    const wrong = official.filter((row, i) => {
      const item = items[i];
      return (
        item === undefined ||
        item.turnIndex !== row.turn ||
        item.history.length !== row.turn ||
        item.action.type !== 'command' ||
        item.action.command !== row.prompts[row.turn] ||
        item.real.content !== row.responses[row.turn] ||
        item.history.some(
          (turn, j) =>
            turn.observation.content !== row.responses[j] ||
            turn.action.type !== 'command' ||
            turn.action.command !== row.prompts[j],
        )
      );
    });
    expect(wrong.map((row) => row.turn)).toEqual([]);
  });

  it('writes numeric ids back as numbers with every digit, and the file back byte for byte', () => {
    const again = agentWorldBenchExportLines(items);
    expect(again[56]).toContain('"id": 9007199254741026,');
    expect(again).toEqual(official.map((row) => row.line));
    const reparsed = benchItemsFromAgentWorldBench(again, 'again.jsonl');
    expect(reparsed.errors).toEqual([]);
    expect(reparsed.items).toEqual(items);
  });

  it('accepts every shape the official script reads, with the same item', () => {
    const source = official.find((row) => row.turn === 2);
    const item = items[official.indexOf(source ?? official[0]!)];
    if (source === undefined || item === undefined) throw new Error('no third turn');
    const base = {
      task: 'mcp',
      id: 7,
      current_prompt: source.prompts[2],
      system_str: 'You simulate the tools of a retail store.',
      turn_idx: 3,
      total_turns: source.prompts.length,
    };
    const shapes = {
      sliced: {
        ...base,
        prompt: source.prompts.slice(0, 3),
        response: source.responses.slice(0, 3),
      },
      terrariumV1: {
        ...base,
        prompt: source.prompts.slice(0, 2),
        response: source.responses.slice(0, 3),
      },
      emptyCurrent: {
        ...base,
        prompt: source.prompts,
        response: source.responses,
        current_prompt: '',
      },
    };
    for (const [shape, row] of Object.entries(shapes)) {
      const parsed = parseAgentWorldBenchLine(JSON.stringify(row), 1, `${shape}.jsonl`);
      if (!parsed.ok) throw new Error(parsed.error.message);
      expect({
        shape,
        item: { ...parsed.item, id: item.id, totalTurns: item.totalTurns, origin: item.origin },
      }).toEqual({ shape, item });
    }
    const first = official[0];
    const bare = parseAgentWorldBenchLine(
      JSON.stringify({
        task: 'mcp',
        id: 8,
        prompt: first?.prompts[0],
        response: first?.responses[0],
        turn_idx: 1,
      }),
      1,
      'bare.jsonl',
    );
    if (!bare.ok) throw new Error(bare.error.message);
    expect(bare.item.history).toEqual([]);
    expect(bare.item.real.content).toBe(first?.responses[0]);
    expect(bare.item.action).toEqual({
      type: 'command',
      command: first?.prompts[0],
      interpreter: null,
    });
    expect(bare.item.context.systemPrompt).toBeNull();
  });
});

describe('AgentWorldBench import errors', () => {
  it('names file, line and field of a bad row', () => {
    const fixture = readFileSync(
      fileURLToPath(new URL('../../../formats/fixtures/agentworldbench.jsonl', import.meta.url)),
      'utf8',
    ).split('\n');
    const { items, errors } = benchItemsFromAgentWorldBench(fixture, 'fixture.jsonl');
    expect(items).toEqual([]);
    expect(errors.map((error) => error.message)).toEqual([
      'fixture.jsonl:1: response: has 2 entries; turn_idx 3 needs entry 3 (the real observation)',
      'fixture.jsonl:2: response: has 0 entries; turn_idx 1 needs entry 1 (the real observation)',
    ]);
    const missing = parseAgentWorldBenchLine('{"task": "t", "prompt": ["ls"]}', 7, 'f.jsonl');
    expect(missing.ok ? null : missing.error.message).toBe(
      'f.jsonl:7: id: missing (every official row has it)',
    );
    const noAction = parseAgentWorldBenchLine(
      '{"task": "t", "id": 1, "prompt": ["ls"], "response": ["a", "b"], "turn_idx": 2}',
      3,
      'f.jsonl',
    );
    expect(noAction.ok ? null : noAction.error.message).toBe(
      'f.jsonl:3: current_prompt: is empty and prompt has no entry 2 (turn_idx 2)',
    );
    const wrongType = parseAgentWorldBenchLine(
      '{"task": "t", "id": "a", "prompt": ["ls", 3], "response": [], "current_prompt": "x", "system_str": null, "turn_idx": 1, "total_turns": 1}',
      8,
      'f.jsonl',
    );
    expect(wrongType.ok ? null : wrongType.error.message).toMatch(/^f\.jsonl:8: prompt: /);
    const broken = parseAgentWorldBenchLine('{"task": ', 9, 'f.jsonl');
    expect(broken.ok ? null : broken.error.message).toMatch(/^f\.jsonl:9: not JSON: /);
  });

  it('takes the domain after the last / (as the official script does), the task whole', () => {
    const parsed = parseAgentWorldBenchLine(
      '{"task": "agentworldbench/terminal", "id": 3, "prompt": "ls", "response": "a"}',
      1,
      'terminal_test.jsonl',
    );
    expect(parsed.ok ? [parsed.item.task, parsed.item.domain] : null).toEqual([
      'agentworldbench/terminal',
      'terminal',
    ]);
  });

  it('reports a repeated id', () => {
    const { items, errors } = benchItemsFromAgentWorldBench([lines[0] ?? '', lines[0] ?? '']);
    expect(items).toHaveLength(1);
    expect(errors.map((error) => error.message)).toEqual([
      'agentworldbench.jsonl:2: id: repeats the id of an earlier row',
    ]);
  });

  it('round-trips a Python-written row with non-ASCII text byte for byte', () => {
    const line =
      '{"task": "terminal", "id": "tb-1", "prompt": ["echo caf\\u00e9", "echo done"], ' +
      '"response": ["caf\\u00e9\\n", "done \\ud83d\\ude00\\n"], "current_prompt": "echo done", ' +
      '"system_str": "You simulate a terminal.", "turn_idx": 2, "total_turns": 2}';
    const parsed = parseAgentWorldBenchLine(line, 1, 'x.jsonl');
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.item.domain).toBe('terminal');
    expect(parsed.item.history[0]?.observation.content).toBe('café\n');
    expect(parsed.item.real.content).toBe('done 😀\n');
    expect(formatAgentWorldBenchLine(toAgentWorldBenchRecord(parsed.item))).toBe(line);
  });
});

const AgentWorldBenchRowJson = z.object({
  prompt: z.array(z.string()),
  response: z.array(z.string()),
  current_prompt: z.string(),
  system_str: z.string().nullable(),
  turn_idx: z.number(),
});
