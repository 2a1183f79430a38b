import {
  buildTerminalWorld,
  createTerminalWorld,
  reconstructWorkspace,
  type World,
  type Workspace,
} from '@terrarium/executable-worlds';
import type { JsonValue, Trajectory } from '@terrarium/schema';
import type { EmptyWorldFactory, WorldFactory } from '../tasks/gates';
import type { WorldRef } from '../tasks/task';
import { emptyScratchWorld, SCRATCH_WORLD } from '../worlds/world-catalog';

/**
 * A world a curriculum can grow: made from its params plus an overlay of extra files (path →
 * content). Mutators add state (distractors, inputs) through the overlay, so the base world stays
 * the one the WORLDS/ENV code reconstructed and every child world is that world plus a visible diff.
 */
export interface EvolvableWorld {
  id: string;
  create(params: Record<string, JsonValue>, overlay: Record<string, string>, seed: number): World;
  /** The same kind of world with nothing in it (the `world-needed` gate); absent: no such gate. */
  empty?(): World;
}

/** The params key mutators write; the rest of the params go to the world unchanged. */
export const OVERLAY_PARAM = 'overlay';

export function overlayOf(ref: WorldRef): Record<string, string> {
  const value = ref.params[OVERLAY_PARAM];
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [path, content] of Object.entries(value))
    if (typeof content === 'string') out[path] = content;
  return out;
}

/** The params key of the observation noise level (0 none … 0.5), applied where a policy looks. */
export const NOISE_PARAM = 'noise';
/** The noise ladder: the chance that a spurious line follows each line a policy sees. */
export const NOISE_LEVELS = [0.1, 0.2, 0.35, 0.5] as const;

export function noiseOf(ref: WorldRef): number {
  const value = ref.params[NOISE_PARAM];
  return typeof value === 'number' && value > 0 ? value : 0;
}

export function withNoise(ref: WorldRef, level: number): WorldRef {
  return { id: ref.id, params: { ...ref.params, [NOISE_PARAM]: level } };
}

const NOISE_WORDS = ['cache', 'retry', 'lock', 'gc', 'sync', 'probe'];

/**
 * An observation as a noisy terminal shows it: after each line, with chance `level`, a spurious
 * `warning:` line. Seeded, so a rollout is repeatable; the world's own output is untouched.
 */
export function noisyObservation(content: string, level: number, random: () => number): string {
  if (level <= 0 || content === '') return content;
  const lines = content.split('\n');
  const out: string[] = [];
  for (const [index, line] of lines.entries()) {
    out.push(line);
    const last = index === lines.length - 1;
    if (!(last && line === '') && random() < level) {
      const word = NOISE_WORDS[Math.floor(random() * NOISE_WORDS.length)] ?? 'sync';
      out.push(`warning: ${word} ${Math.floor(random() * 9000) + 1000}`);
    }
  }
  return out.join('\n');
}

export function withOverlay(ref: WorldRef, files: Record<string, string>): WorldRef {
  return {
    id: ref.id,
    params: { ...ref.params, [OVERLAY_PARAM]: { ...overlayOf(ref), ...files } },
  };
}

export interface WorldFactoryOptions {
  /**
   * Distinct (world, params, seed) kept built, each handed out as a fork (default 256; 0 builds
   * every time). A curriculum plays the same task dozens of times (probes, the oracle, four
   * gates): building its workspace once, and letting every fork share the world's memo of
   * (state, action) → transition, is most of what a run spends outside the policy.
   */
  cacheSize?: number;
}

/** The factory the gates and rollouts use: finds the world, strips the overlay, applies it. */
export function evolvableWorldFactory(
  worlds: EvolvableWorld[],
  options: WorldFactoryOptions = {},
): WorldFactory {
  const byId = new Map(worlds.map((world) => [world.id, world]));
  const cacheSize = options.cacheSize ?? 256;
  const built = new Map<string, World>();
  const build = (ref: WorldRef, seed: number): World => {
    const world = byId.get(ref.id);
    if (world === undefined) throw new Error(`no world ${ref.id}`);
    const { [OVERLAY_PARAM]: _overlay, [NOISE_PARAM]: _noise, ...params } = ref.params;
    return world.create(params, overlayOf(ref), seed);
  };
  if (cacheSize <= 0) return build;
  return (ref, seed) => {
    // Noise is applied where the policy looks, not in the world: noisy and clean share a world.
    const { [NOISE_PARAM]: _noise, ...params } = ref.params;
    const key = `${seed}\u0000${ref.id}\u0000${JSON.stringify(params)}`;
    let pristine = built.get(key);
    if (pristine === undefined) {
      pristine = build(ref, seed);
      if (built.size >= cacheSize) {
        const oldest = built.keys().next().value;
        if (oldest !== undefined) built.delete(oldest);
      }
      built.set(key, pristine);
    }
    // Never stepped: every fork starts from the initial state, as a fresh build would.
    return pristine.fork();
  };
}

/** The empty worlds of `worlds` by reference, for the gates of what a curriculum mutates. */
export function evolvableEmptyWorlds(worlds: EvolvableWorld[]): EmptyWorldFactory {
  const byId = new Map(worlds.map((world) => [world.id, world]));
  return (ref) => byId.get(ref.id)?.empty?.();
}

/** A reconstructed terminal/SWE world: the overlay's files are added to its starting workspace. */
export function trajectoryWorld(
  id: string,
  trajectory: Trajectory,
  workspace: Workspace = reconstructWorkspace(trajectory),
): EvolvableWorld {
  return {
    id,
    create: (_params, overlay) => {
      const extra = Object.entries(overlay).map(([path, content]) => ({ path, content }));
      return buildTerminalWorld(trajectory, {
        workspace: { ...workspace, entries: [...workspace.entries, ...extra] },
      });
    },
    empty: () => createTerminalWorld(`${id}:empty`, { cwd: workspace.cwd, env: {}, entries: [] }),
  };
}

/** The `scratch` world: the overlay joins its `extra` files. */
export const SCRATCH_EVOLVABLE: EvolvableWorld = {
  id: SCRATCH_WORLD.id,
  create: (params, overlay, seed) => {
    const extra = params['extra'];
    const base = typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? extra : {};
    return SCRATCH_WORLD.create({ ...params, extra: { ...base, ...overlay } }, seed);
  },
  empty: emptyScratchWorld,
};
