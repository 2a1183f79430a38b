/// <reference types="node" />
// Lives here rather than in packages/formats: formats may not depend on this package (this one
// already has formats as a devDependency, so the reverse would be a workspace cycle).
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { buildBench } from '../build-bench';
import { readSources } from '../real-data.testkit';
import { agentWorldBenchExportLines } from './export-lines';

const { items } = buildBench({
  trajectories: await readSources(['tau2-retail', 'tau2-airline', 'tau2-telecom']),
  name: 'awb-export',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 5,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: [],
});

const folder = mkdtempSync(join(tmpdir(), 'awb-export-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const file = join(folder, 'tau2.jsonl');
writeFileSync(
  file,
  agentWorldBenchExportLines(items)
    .map((line) => `${line}\n`)
    .join(''),
);

let format: string | null = null;
const problems: string[] = [];
const imported: Trajectory[] = [];
for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
  if (event.type === 'format') format = event.format;
  else if (event.type === 'trajectory') imported.push(event.trajectory);
  // A warning counts too: what the export writes must read back as it was meant.
  else if (event.type === 'warning')
    problems.push(`${event.warning.line ?? '?'}: ${event.warning.reason}`);
  else problems.push(`${event.error.line ?? '?'}: ${event.error.reason}`);
}

describe('a bench exported as AgentWorldBench JSONL, read back by the importer', () => {
  it('is detected as agentworldbench and every row imports', () => {
    expect(items).toHaveLength(441);
    expect(format).toBe('agentworldbench');
    expect(problems).toEqual([]);
    expect(imported.map((trajectory) => trajectory.externalId)).toEqual(
      items.map((item) => item.id),
    );
    // With the task text each row carries (Terrarium's own key; official files have none).
    expect(imported.map((trajectory) => trajectory.task)).toEqual(
      items.map((item) => item.context.task),
    );
    // Named by the official subtask (function calling is `mcp`), the domain read back as it was.
    expect(new Set(imported.map((trajectory) => trajectory.sourceBenchmark))).toEqual(
      new Set(['agentworldbench/mcp']),
    );
    expect(imported.map((trajectory) => trajectory.domain)).toEqual(
      items.map((item) => item.domain),
    );
  });

  it("gives each row's evaluated step the item's real observation, after its history, markers off", () => {
    const mismatched = items.filter((item, i) => {
      const steps = imported[i]?.steps ?? [];
      const current = steps[item.history.length];
      return (
        steps.length !== item.totalTurns ||
        steps.filter((step) => step.metadata.current === true).length !== 1 ||
        current?.observation?.content !== item.real.content ||
        current.metadata.current !== true ||
        steps.some(
          (step, k) =>
            k < item.history.length &&
            step.observation?.content !== item.history[k]?.observation.content,
        )
      );
    });
    expect(mismatched.map((item) => item.id)).toEqual([]);
  });

  it('reads every tau2 action back as the same tool call (name and arguments)', () => {
    const lost = items.filter((item, i) => {
      const action = imported[i]?.steps[item.history.length]?.action;
      if (item.action.type !== 'tool_call') return true;
      return (
        action?.type !== 'tool_call' ||
        action.name !== item.action.name ||
        JSON.stringify(action.arguments) !== JSON.stringify(item.action.arguments)
      );
    });
    expect(lost.map((item) => item.id)).toEqual([]);
  });
});
