import {
  buildTerminalWorld,
  reconstructWorkspace,
  type World,
  type Workspace,
} from '@terrarium/executable-worlds';
import type { JsonValue, Trajectory } from '@terrarium/schema';
import type { WorldFactory } from '../tasks/gates';
import type { WorldRef } from '../tasks/task';
import { SCRATCH_WORLD } from '../worlds/world-catalog';

/**
 * A world a curriculum can grow: made from its params plus an overlay of extra files (path →
 * content). Mutators add state (distractors, inputs) through the overlay, so the base world stays
 * the one the WORLDS/ENV code reconstructed and every child world is that world plus a visible diff.
 */
export interface EvolvableWorld {
  id: string;
  create(params: Record<string, JsonValue>, overlay: Record<string, string>, seed: number): World;
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

export function withOverlay(ref: WorldRef, files: Record<string, string>): WorldRef {
  return {
    id: ref.id,
    params: { ...ref.params, [OVERLAY_PARAM]: { ...overlayOf(ref), ...files } },
  };
}

/** The factory the gates and rollouts use: finds the world, strips the overlay, applies it. */
export function evolvableWorldFactory(worlds: EvolvableWorld[]): WorldFactory {
  const byId = new Map(worlds.map((world) => [world.id, world]));
  return (ref, seed) => {
    const world = byId.get(ref.id);
    if (world === undefined) throw new Error(`no world ${ref.id}`);
    const { [OVERLAY_PARAM]: _overlay, ...params } = ref.params;
    return world.create(params, overlayOf(ref), seed);
  };
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
};
