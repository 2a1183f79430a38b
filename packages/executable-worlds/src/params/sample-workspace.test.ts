import { describe, expect, it } from 'vitest';
import { createTerminalWorld } from '../terminal/terminal-world';
import type { Workspace } from '../world';
import { sampleWorkspace } from './sample-workspace';

const BASE: Workspace = {
  cwd: '/testbed',
  env: {},
  entries: [
    { path: '/testbed', content: null },
    { path: '/testbed/dir1', content: null },
    { path: '/testbed/dir1/notes.txt', content: 'count 12\nlimit 300\n' },
    { path: '/testbed/hello.py', content: 'print(7)\n' },
  ],
};

describe('parameterized worlds', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const parameters = {
      renameFraction: 0.5,
      distractors: 3,
      numberJitter: 5,
      copies: 2,
      nesting: 1,
    };
    const first = sampleWorkspace(BASE, parameters, 42);
    expect(sampleWorkspace(BASE, parameters, 42)).toEqual(first);
    expect(sampleWorkspace(BASE, parameters, 43).workspace).not.toEqual(first.workspace);
  });

  it('yields valid worlds: unique paths, parents present, counts as asked, files the shell can read', async () => {
    const sample = sampleWorkspace(BASE, { distractors: 4, copies: 3, nesting: 2 }, 7);
    const paths = sample.workspace.entries.map((entry) => entry.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(sample.distractors).toHaveLength(4);
    // 2 originals × 3 copies + 4 distractors.
    expect(sample.workspace.entries.filter((entry) => entry.content !== null)).toHaveLength(10);
    const world = createTerminalWorld('sampled', sample.workspace);
    expect(world.files()).toHaveLength(10);
    const listing = await world.step({
      type: 'command',
      command: 'cat dir1/notes_3.txt',
      interpreter: 'bash',
    });
    expect(listing.observation.content).toBe('count 12\nlimit 300\n');
    for (const path of sample.distractors) expect(world.readFile(path)).not.toBeNull();
  });

  it('reports renames and moves numbers within the jitter', () => {
    const sample = sampleWorkspace(BASE, { renameFraction: 1, numberJitter: 2 }, 1);
    expect(Object.keys(sample.renamed).toSorted()).toEqual([
      '/testbed/dir1/notes.txt',
      '/testbed/hello.py',
    ]);
    const renamedNotes = sample.renamed['/testbed/dir1/notes.txt'];
    const notes = sample.workspace.entries.find((entry) => entry.path === renamedNotes);
    const [count, limit] = (notes?.content ?? '').match(/\d+/g)?.map(Number) ?? [];
    expect(Math.abs((count ?? 0) - 12)).toBeLessThanOrEqual(2);
    expect(Math.abs((limit ?? 0) - 300)).toBeLessThanOrEqual(2);
    expect(renamedNotes?.endsWith('.txt')).toBe(true);
  });

  it("keeps a placeholder's mark on its renamed and copied entries; distractors have none", () => {
    const base: Workspace = {
      ...BASE,
      entries: [...BASE.entries, { path: '/testbed/setup.cfg', content: '', placeholder: true }],
    };
    const sample = sampleWorkspace(base, { renameFraction: 1, copies: 2, distractors: 1 }, 3);
    const renamedCfg = sample.renamed['/testbed/setup.cfg'];
    expect(renamedCfg?.endsWith('.cfg')).toBe(true);
    expect(
      sample.workspace.entries
        .filter((entry) => entry.placeholder === true)
        .map((entry) => entry.path)
        .toSorted(),
    ).toEqual([renamedCfg, renamedCfg?.replace(/\.cfg$/, '_2.cfg')].toSorted());
    expect(sample.distractors).toHaveLength(1);
    const distractor = sample.workspace.entries.find(
      (entry) => entry.path === sample.distractors[0],
    );
    expect(distractor?.placeholder).toBeUndefined();
  });
});
