import { domainOfBenchmark } from '@terrarium/formats';
import { DOMAINS, isTransition, type BenchItem } from '@terrarium/schema';
import { sharedDataAvailable, UNSHIPPED_DATA_REASON } from '@terrarium/schema/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildBench } from '../build-bench';
import { readSources } from '../real-data.testkit';
import { agentWorldBenchExportLines } from './export-lines';
import {
  agentWorldBenchTask,
  benchItemsFromAgentWorldBench,
  importedBenchManifest,
  officialSubtask,
} from './records';

// Facts of the official eval/eval.py (QwenLM/Qwen-AgentWorld), restated, not its code: a row's
// subtask is the part of `task` after the last `/`; it picks the task config (unknown: mcp's) and
// the judge system prompt (unknown: empty), and the report has a line per subtask. It knows seven.
const OFFICIAL_SUBTASKS = ['mcp', 'search', 'terminal', 'swe', 'android', 'web', 'os'];

function subtaskOf(task: string): string {
  return task.split('/').at(-1) ?? task;
}

const Row = z.object({
  task: z.string(),
  id: z.string(),
  prompt: z.array(z.string()),
  response: z.array(z.string()),
  current_prompt: z.string(),
  turn_idx: z.number(),
  total_turns: z.number(),
});
type Row = z.infer<typeof Row>;

/**
 * What the official script sends the judge of a row, as plain parts: the earlier turns, the current
 * action and the ground truth. It reads no turn after `turn_idx` and never reads `total_turns`.
 */
function judgedParts(row: Row) {
  const turn = Math.max(row.turn_idx - 1, 0);
  const earlier = Math.min(turn, row.prompt.length, row.response.length);
  return {
    context: row.prompt.slice(0, earlier).map((prompt, i) => [prompt, row.response[i]]),
    current: row.current_prompt === '' ? (row.prompt[turn] ?? '') : row.current_prompt,
    truth: row.response[turn] ?? '',
  };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe('the official subtask of each Terrarium domain', () => {
  it('is the official domain where the release has one, else the domain, and reads back as it', () => {
    expect(Object.fromEntries(DOMAINS.map((domain) => [domain, officialSubtask(domain)]))).toEqual({
      terminal: 'terminal',
      tool: 'mcp',
      search: 'search',
      swe: 'swe',
      web: 'web',
      android: 'android',
      os: 'os',
      database: 'database',
      'text-game': 'text-game',
    });
    // Imports take the domain from the same last part: every domain comes back as it was.
    expect(
      DOMAINS.filter((domain) => domainOfBenchmark(officialSubtask(domain)) !== domain),
    ).toEqual([]);
  });

  it('ends the task in it, keeping the stratum in front unless it already ends so', () => {
    const cases: Array<Pick<BenchItem, 'task' | 'domain'>> = [
      { task: 'tau2-bench/airline', domain: 'tool' },
      { task: 'intercode/bash', domain: 'terminal' },
      { task: 'swe-agent/ctf', domain: 'terminal' },
      { task: 'swe-agent/swe', domain: 'swe' },
      { task: 'mcp', domain: 'tool' },
      { task: 'airline', domain: 'tool' },
      // A stratum whose last part names another official domain: the item's domain decides.
      { task: 'mirror/swe', domain: 'terminal' },
      { task: 'intercode/sql', domain: 'database' },
      { task: '', domain: 'os' },
    ];
    expect(cases.map(agentWorldBenchTask)).toEqual([
      'tau2-bench/airline/mcp',
      'intercode/bash/terminal',
      'swe-agent/ctf/terminal',
      'swe-agent/swe',
      'mcp',
      'airline/mcp',
      'mirror/swe/terminal',
      'intercode/sql/database',
      'os',
    ]);
  });
});

// The user's case: a bench holding only some turns of each trajectory (`--max-per-task`), over
// the real tau2 airline and retail, InterCode bash and SWE-agent (SWE and CTF) runs.
// InterCode is not shipped (its licence): without ../shared/data the suite is listed as not run.
const withInterCode = sharedDataAvailable('intercode');
const sources = withInterCode
  ? await readSources(['tau2-airline', 'intercode-bash', 'swe-agent', 'tau2-retail'])
  : await readSources(['tau2-airline']);
const { items, manifest } = buildBench({
  trajectories: sources,
  name: 'awb-capped',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 0,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: [],
  maxItemsPerTask: 12,
});
const lines = agentWorldBenchExportLines(items);
const rows = lines.map((line) => Row.parse(JSON.parse(line)));

function itemAt(i: number): BenchItem {
  const item = items[i];
  if (item === undefined) throw new Error(`no item ${i}`);
  return item;
}

describe.skipIf(!withInterCode)(
  `an export as the official eval.py reads it (bench capped at 12 items per task) ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('gives every row an official subtask: its domain, the stratum before it', () => {
      expect(rows).toHaveLength(60);
      expect(countBy(rows.map((row) => row.task))).toEqual({
        'intercode/bash/terminal': 12,
        'swe-agent/ctf/terminal': 12,
        'swe-agent/swe': 12,
        'tau2-bench/airline/mcp': 12,
        'tau2-bench/retail/mcp': 12,
      });
      expect(countBy(rows.map((row) => subtaskOf(row.task)))).toEqual({
        terminal: 24,
        swe: 12,
        mcp: 24,
      });
      expect(rows.filter((row) => !OFFICIAL_SUBTASKS.includes(subtaskOf(row.task)))).toEqual([]);
      expect(
        rows.filter((row, i) => {
          const item = itemAt(i);
          const stratum = row.task.slice(0, row.task.lastIndexOf('/'));
          return (
            subtaskOf(row.task) !== officialSubtask(item.domain) ||
            (stratum !== item.task && row.task !== item.task)
          );
        }),
      ).toEqual([]);
    });

    it('writes each trajectory as far as the bench holds it, total_turns its true length', () => {
      const byTrajectory = new Map(
        sources.map(({ dataset, trajectory }) => [
          `${dataset}\u0000${trajectory.externalId}`,
          trajectory.steps.filter(isTransition),
        ]),
      );
      // The last turn the bench holds of each trajectory, from the items alone.
      const held = new Map<string, number>();
      for (const item of items) {
        const key = `${item.origin.dataset ?? ''}\u0000${item.origin.trajectory ?? ''}`;
        held.set(key, Math.max(held.get(key) ?? 0, item.turnIndex + 1));
      }
      const wrong = rows.filter((row, i) => {
        const item = itemAt(i);
        const key = `${item.origin.dataset ?? ''}\u0000${item.origin.trajectory ?? ''}`;
        const transitions = byTrajectory.get(key) ?? [];
        return (
          row.total_turns !== transitions.length ||
          row.total_turns !== item.totalTurns ||
          row.turn_idx !== item.turnIndex + 1 ||
          row.prompt.length !== held.get(key) ||
          row.response.length !== row.prompt.length ||
          // Every turn written is the run's own, in the official layout.
          row.response.some(
            (response, k) =>
              response !== `**Environment Observation:**\n${transitions[k]?.observation?.content}`,
          ) ||
          row.prompt.some((prompt, k) => !prompt.startsWith(`### Turn ${k + 1}\n**Action:**\n`))
        );
      });
      expect(wrong.map((row) => row.id)).toEqual([]);
      // How far the lists go: the whole run, up to the row's own turn only, or in between (a later
      // item of the run is held, its last turn is not). No row stops before its turn.
      const extent = rows.map((row) =>
        row.prompt.length === row.total_turns
          ? 'whole run'
          : row.prompt.length === row.turn_idx
            ? 'to its turn'
            : `${row.turn_idx} of ${row.prompt.length} of ${row.total_turns}`,
      );
      expect(countBy(extent)).toEqual({
        'whole run': 18,
        'to its turn': 37,
        '4 of 11 of 14': 1,
        '1 of 3 of 7': 1,
        '1 of 4 of 5': 1,
        '1 of 6 of 8': 1,
        '7 of 10 of 13': 1,
      });
    });

    it('gives the judge each item as the bench holds it, whatever the lists hold after the turn', () => {
      const wrong = rows.filter((row, i) => {
        const item = itemAt(i);
        const judged = judgedParts(row);
        return (
          judged.context.length !== item.history.length ||
          judged.context.some(
            ([prompt, response], k) =>
              !prompt?.startsWith(`### Turn ${k + 1}\n**Action:**\n`) ||
              response !== `**Environment Observation:**\n${item.history[k]?.observation.content}`,
          ) ||
          !judged.current.startsWith(`### Turn ${item.turnIndex + 1}\n**Action:**\n`) ||
          judged.truth !== `**Environment Observation:**\n${item.real.content}`
        );
      });
      expect(wrong.map((row) => row.id)).toEqual([]);
    });

    it('reads back as the same bench (ids, hash, domains, turns) and exports to the same rows', () => {
      const imported = benchItemsFromAgentWorldBench(lines, 'capped_test.jsonl');
      expect(imported.errors).toEqual([]);
      const back = imported.items;
      expect(back.map((item) => item.id)).toEqual(items.map((item) => item.id));
      expect(
        importedBenchManifest(back, {
          name: 'copy',
          version: 1,
          createdAt: '2026-11-29T00:00:00.000Z',
          fileName: 'capped_test.jsonl',
        }).contentHash,
      ).toBe(manifest.contentHash);
      expect(back.map((item) => [item.domain, item.turnIndex, item.totalTurns])).toEqual(
        items.map((item) => [item.domain, item.turnIndex, item.totalTurns]),
      );
      // Read back, the task is the row's whole (the stratum and the official domain after it).
      expect(back.map((item) => item.task)).toEqual(rows.map((row) => row.task));
      expect(agentWorldBenchExportLines(back)).toEqual(lines);
    });
  },
);
