import type { Workspace, WorkspaceEntry } from '../world';

/**
 * Knobs for sampling new worlds from one reconstruction. Every sample is a valid workspace (paths
 * stay unique, every file keeps a parent directory) and the same (workspace, parameters, seed)
 * always gives the same sample, so a curriculum can name a world by its seed.
 */
export interface WorldParameters {
  /** Share of file names (not extensions) replaced by sampled ones, 0..1. */
  renameFraction: number;
  /** Extra files with sampled names and content, placed in existing directories. */
  distractors: number;
  /** Each integer in file contents is moved by up to ± this amount (0: values kept). */
  numberJitter: number;
  /** Copies of each file (1: none added), named `name_2.ext`, `name_3.ext`… */
  copies: number;
  /** Extra directory levels inserted above the files of each distractor (nesting depth). */
  nesting: number;
}

export const DEFAULT_PARAMETERS: WorldParameters = {
  renameFraction: 0,
  distractors: 0,
  numberJitter: 0,
  copies: 1,
  nesting: 0,
};

export interface SampledWorkspace {
  workspace: Workspace;
  /** Old path → new path for every renamed file, so tasks can rewrite goals and checks. */
  renamed: Record<string, string>;
  /** The distractor paths added. */
  distractors: string[];
}

/** mulberry32: small, fast, good enough to spread samples; no Math.random (seeded, repeatable). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'alpha',
  'delta',
  'ember',
  'fjord',
  'grove',
  'harbor',
  'iris',
  'juniper',
  'kestrel',
  'lumen',
  'meadow',
  'nova',
  'orbit',
  'pebble',
  'quartz',
  'raven',
  'sable',
  'tundra',
  'umber',
  'vale',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function split(path: string): { dir: string; stem: string; ext: string } {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  return {
    dir: path.slice(0, Math.max(slash, 0)) || '/',
    stem: dot > 0 ? name.slice(0, dot) : name,
    ext: dot > 0 ? name.slice(dot) : '',
  };
}

function join(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

export function sampleWorkspace(
  base: Workspace,
  parameters: Partial<WorldParameters>,
  seed: number,
): SampledWorkspace {
  const p = { ...DEFAULT_PARAMETERS, ...parameters };
  const random = seededRandom(seed);
  const taken = new Set(base.entries.map((entry) => entry.path));
  const fresh = (dir: string, ext: string): string => {
    for (let attempt = 0; ; attempt++) {
      const name = `${pick(random, WORDS)}${attempt > 3 ? `_${Math.floor(random() * 1e6)}` : ''}${ext}`;
      const path = join(dir, name);
      if (!taken.has(path)) {
        taken.add(path);
        return path;
      }
    }
  };
  const renamed: Record<string, string> = {};
  const entries: WorkspaceEntry[] = [];
  for (const entry of base.entries) {
    if (entry.content === null) {
      entries.push(entry);
      continue;
    }
    let path = entry.path;
    if (random() < p.renameFraction) {
      const { dir, ext } = split(entry.path);
      path = fresh(dir, ext);
      renamed[entry.path] = path;
    }
    const content =
      p.numberJitter > 0
        ? entry.content.replace(/\b\d+\b/g, (digits) =>
            String(Math.max(0, Number(digits) + Math.round((random() * 2 - 1) * p.numberJitter))),
          )
        : entry.content;
    // Renamed, copied or jittered, a placeholder's stand-in is still no file's real content: the
    // entry keeps its mark (`...entry`). Distractors are made here whole and have none.
    entries.push({ ...entry, path, content });
    const { dir, stem, ext } = split(path);
    for (let copy = 2; copy <= p.copies; copy++) {
      const copyPath = join(dir, `${stem}_${copy}${ext}`);
      if (taken.has(copyPath)) continue;
      taken.add(copyPath);
      entries.push({ ...entry, path: copyPath, content });
    }
  }
  const dirs = base.entries.filter((entry) => entry.content === null).map((entry) => entry.path);
  const homes = dirs.length > 0 ? dirs : [base.cwd];
  const distractors: string[] = [];
  for (let i = 0; i < p.distractors; i++) {
    let dir = pick(random, homes);
    for (let level = 0; level < p.nesting; level++) {
      dir = join(dir, pick(random, WORDS));
      if (!taken.has(dir)) {
        taken.add(dir);
        entries.push({ path: dir, content: null });
      }
    }
    const path = fresh(dir, pick(random, ['.txt', '.log', '.py', '.md']));
    const lines = 1 + Math.floor(random() * 5);
    const content =
      Array.from(
        { length: lines },
        () => `${pick(random, WORDS)} ${Math.floor(random() * 1000)}`,
      ).join('\n') + '\n';
    entries.push({ path, content });
    distractors.push(path);
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { workspace: { ...base, entries }, renamed, distractors };
}
