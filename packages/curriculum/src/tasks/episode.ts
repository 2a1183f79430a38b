import type { World, WorldStepResult } from '@terrarium/executable-worlds';
import type { Action, JsonValue } from '@terrarium/schema';
import { isToolWorld } from '../worlds/world-kinds';
import type { SolutionAction } from './task';

/** What an agent did: act on the world, or end the episode (optionally with an answer). */
export type AgentMove =
  | { kind: 'act'; action: Action }
  | { kind: 'submit'; answer: string | null }
  | { kind: 'invalid'; reason: string };

/**
 * The tools a tool world offers its agent, by name, or null when it was given no list (a world
 * rebuilt from one trajectory): then any name is tried, and the world says what it cannot answer.
 */
function offeredTools(world: World): string[] | null {
  if (!isToolWorld(world)) return null;
  const names = world.tools().map((tool) => tool.function.name);
  return names.length === 0 ? null : names;
}

/** The moves a tool world takes, for an invalid move's reason (names only: the schemas came on open). */
function toolChoice(names: readonly string[]): string {
  return `use ${names.join(', ')} or submit`;
}

/** A tool call (name + parsed arguments) as the agent's move in a world of this kind. */
export function moveFromToolCall(world: World, name: string, args: JsonValue): AgentMove {
  const record = typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {};
  if (name === 'submit') {
    const answer = record['answer'];
    return { kind: 'submit', answer: typeof answer === 'string' ? answer : null };
  }
  if (world.kind === 'tool') {
    // A name outside the offered tools is the policy's mistake, as `python` is in a shell world
    // (walk 52: `fly_me` was stepped and answered in the world's jargon). Environment setup
    // (`init:`) is never the agent's, even where the world was given no list.
    const offered = offeredTools(world);
    if (name.startsWith('init:') || (offered !== null && !offered.includes(name))) {
      const choice = offered === null ? '' : `; ${toolChoice(offered)}`;
      return { kind: 'invalid', reason: `unknown tool ${name}${choice}` };
    }
    return { kind: 'act', action: { type: 'tool_call', name, arguments: record, callId: null } };
  }
  const field = world.kind === 'sql' ? 'query' : 'command';
  const expected = world.kind === 'sql' ? 'sql' : 'bash';
  if (name !== expected)
    return { kind: 'invalid', reason: `unknown tool ${name}; use ${expected} or submit` };
  const text = record[field];
  if (typeof text !== 'string')
    return { kind: 'invalid', reason: `${name} needs a string "${field}"` };
  return {
    kind: 'act',
    action: { type: 'command', command: text, interpreter: world.kind === 'sql' ? 'sql' : 'bash' },
  };
}

/** Raw text: `submit` (optionally `submit <answer>`) ends the episode; anything else is a command. */
export function moveFromText(world: World, text: string): AgentMove {
  const submit = /^submit(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (submit) return { kind: 'submit', answer: submit[1] ?? null };
  if (world.kind === 'tool') {
    // `name {json arguments}`, the way tool calls read in a transcript.
    const call = /^\s*([A-Za-z_][\w.:-]*)\s*(\{[\s\S]*\})?\s*$/.exec(text);
    const offered = offeredTools(world);
    // Text that names no tool (`ls`, prose) is no call at all: said so, rather than "unknown
    // tool ls", which would read as if `ls` were nearly right. A name with JSON arguments is a
    // call, and an unknown name in it is answered as an unknown tool.
    if (
      call === null ||
      (call[2] === undefined && offered !== null && !offered.includes(call[1] ?? ''))
    )
      return {
        kind: 'invalid',
        reason: `a tool world takes tool calls, not text like ${quoted(text)}; ${
          offered === null ? 'write one as tool_name {"arg": …}' : toolChoice(offered)
        }`,
      };
    let args: JsonValue = {};
    try {
      const parsed: JsonValue = JSON.parse(call[2] ?? '{}');
      args = parsed;
    } catch {
      return { kind: 'invalid', reason: `the arguments of ${call[1]} are not JSON` };
    }
    return moveFromToolCall(world, call[1] ?? '', args);
  }
  return {
    kind: 'act',
    action: { type: 'command', command: text, interpreter: world.kind === 'sql' ? 'sql' : 'bash' },
  };
}

/** Text as a reason quotes it: one line, cut short, so a pasted transcript does not fill it. */
function quoted(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return JSON.stringify(line.length <= 40 ? line : `${line.slice(0, 40)}…`);
}

export function moveFromSolution(world: World, action: SolutionAction): AgentMove {
  return typeof action === 'string'
    ? moveFromText(world, action)
    : moveFromToolCall(world, action.tool, action.arguments);
}

/** An episode in progress: the world plus what the verifier reads besides the state. */
export interface Episode {
  world: World;
  /** Output of the last action that ran (InterCode scores the last command's output). */
  lastOutput: string;
  answer: string | null;
  submitted: boolean;
}

export function startEpisode(world: World, initialOutput = ''): Episode {
  return { world, lastOutput: initialOutput, answer: null, submitted: false };
}

/** The answer the verifier scores: the submitted one, else the last output. */
export function answerOf(episode: Episode): string {
  return episode.answer ?? episode.lastOutput;
}

export async function applyMove(
  episode: Episode,
  move: AgentMove,
): Promise<WorldStepResult | null> {
  if (move.kind === 'submit') {
    episode.submitted = true;
    episode.answer = move.answer;
    return null;
  }
  if (move.kind === 'invalid') return null;
  const result = await episode.world.step(move.action);
  episode.lastOutput = result.observation.content;
  return result;
}

export function forkEpisode(episode: Episode): Episode {
  return { ...episode, world: episode.world.fork() };
}
