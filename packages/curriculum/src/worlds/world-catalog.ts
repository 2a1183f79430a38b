import type { World } from '@terrarium/executable-worlds';
import type { JsonValue, ToolSchema } from '@terrarium/schema';
import { createScratchWorld } from './scratch-world';
import { isTerminalWorld, isToolWorld } from './world-kinds';

/** Makes a fresh world from parameters and a seed; the same inputs give the same world. */
export interface WorldEntry {
  id: string;
  description: string;
  create(params: Record<string, JsonValue>, seed: number): World;
  /**
   * A world of the same kind with nothing in it: a task whose oracle gets its answer (a value
   * computed over nothing) there too is refused by the `world-needed` gate. Absent: no such gate.
   */
  empty?(params: Record<string, JsonValue>): World;
  /**
   * What is wrong with these parameters, naming the one at fault (`files: …`), or null. A world
   * that takes parameters says so, rather than making a world other than the one asked for.
   */
  checkParams?(params: Record<string, JsonValue>): string | null;
}

export interface WorldCatalog {
  get(id: string): WorldEntry | undefined;
  list(): WorldEntry[];
}

export function createWorldCatalog(
  entries: WorldEntry[],
): WorldCatalog & { add(entry: WorldEntry): void } {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return {
    get: (id) => byId.get(id),
    list: () => [...byId.values()],
    add(entry) {
      byId.set(entry.id, entry);
    },
  };
}

/**
 * What is wrong with `params` for this world (`files: …`), or null. A world without `checkParams`
 * takes none: a parameter it would ignore is refused rather than giving a world other than the one
 * asked for (walk 43: `params: {"x": 1}` on a tool world was accepted and ignored).
 */
export function worldParamsProblem(
  entry: WorldEntry,
  params: Record<string, JsonValue>,
): string | null {
  if (entry.checkParams !== undefined) return entry.checkParams(params);
  const [name] = Object.keys(params);
  return name === undefined ? null : `${name}: the world ${entry.id} takes no parameters`;
}

function numberParam(params: Record<string, JsonValue>, name: string, fallback: number): number {
  const value = params[name];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

function stringRecordParam(
  params: Record<string, JsonValue>,
  name: string,
): Record<string, string> {
  const value = params[name];
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, content] of Object.entries(value))
    if (typeof content === 'string') out[key] = content;
  return out;
}

const MAX_SCRATCH_FILES = 1000;

function checkScratchParams(params: Record<string, JsonValue>): string | null {
  for (const [name, value] of Object.entries(params)) {
    if (name === 'files') {
      if (
        typeof value !== 'number' ||
        !Number.isInteger(value) ||
        value < 0 ||
        value > MAX_SCRATCH_FILES
      )
        return `files: a whole number from 0 to ${MAX_SCRATCH_FILES}, got ${JSON.stringify(value)}`;
    } else if (name === 'extra') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return 'extra: an object of absolute path → file content';
      for (const [path, content] of Object.entries(value)) {
        if (!path.startsWith('/')) return `extra: ${path} is not an absolute path`;
        if (typeof content !== 'string') return `extra.${path}: file content is a string`;
      }
    } else {
      return `${name}: not a parameter of the scratch world (it takes files and extra)`;
    }
  }
  return null;
}

/** The scratch shell with no files at all. */
export function emptyScratchWorld(): World {
  return createScratchWorld('scratch:empty', { files: 0 });
}

/** `scratch`: params `files` (distractors, default 3, at most 1,000) and `extra` (path → content). */
export const SCRATCH_WORLD: WorldEntry = {
  id: 'scratch',
  description:
    'A small in-memory shell (echo with > and >>, cat, ls, rm, pwd, cd, wc -l, true; one command per line).',
  checkParams: checkScratchParams,
  create: (params, seed) =>
    createScratchWorld('scratch', {
      files: Math.min(numberParam(params, 'files', 3), MAX_SCRATCH_FILES),
      seed,
      extra: stringRecordParam(params, 'extra'),
    }),
  empty: () => emptyScratchWorld(),
};

export const SUBMIT_TOOL: ToolSchema = {
  type: 'function',
  function: {
    name: 'submit',
    description: 'End the episode. The verifier then scores the final state and the answer.',
    parameters: {
      type: 'object',
      properties: {
        answer: {
          type: 'string',
          description: 'The answer; when omitted, the output of the last action counts.',
        },
      },
    },
  },
};

/** What an agent in a terminal world gets: one shell command line per step, then submit. */
export const TERMINAL_TOOLS: readonly ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'bash',
      description: 'Run one shell command line and see its output.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string' } },
        required: ['command'],
      },
    },
  },
  SUBMIT_TOOL,
];

/** The tools (OpenAI function schemas) an agent gets for a world of this kind. */
export function toolsFor(world: World): ToolSchema[] {
  if (isToolWorld(world)) return [...world.tools(), SUBMIT_TOOL];
  if (world.kind === 'sql') {
    return [
      {
        type: 'function',
        function: {
          name: 'sql',
          description: 'Run one SQL statement against the database and see the rows or the error.',
          parameters: {
            type: 'object',
            properties: { query: { type: 'string' } },
            required: ['query'],
          },
        },
      },
      SUBMIT_TOOL,
    ];
  }
  const help = isTerminalWorld(world) ? world.shellHelp : undefined;
  if (help === undefined) return [...TERMINAL_TOOLS];
  // The bash tool says what this world's shell accepts, so a policy does not reach for tail.
  return TERMINAL_TOOLS.map((tool) =>
    tool.function.name === 'bash'
      ? {
          ...tool,
          function: {
            ...tool.function,
            description: `Run one shell command line and see its output. ${help}`,
          },
        }
      : tool,
  );
}
