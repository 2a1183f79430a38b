import type { World } from '@terrarium/executable-worlds';
import { actionText } from '@terrarium/worlds';
import { z } from 'zod';
import { moveFromText, moveFromToolCall, type AgentMove } from '../tasks/episode';
import { cutMarked, fromOneLine, oneLine, truncateUtf8 } from './policy-text';

/**
 * The prompt of a language-model policy that plays curriculum tasks (the bundled ONNX policy and
 * any model trained like it). Training examples are rendered by this module
 * (models/policy/export-examples.ts), so training and play cannot drift apart; Python only reads
 * the rendered bytes.
 *
 * Version 1:
 *
 *   @policy <world kind>\n
 *   G: <the task's goal, ≤ 512 bytes>\n
 *   T: <what the policy may do: `bash, submit`>\n
 *   O: <the first screen, ≤ 160 bytes>\n
 *   A: <an earlier action>\n            ┐ every earlier step, oldest first, while they fit in
 *   O: <what the policy saw after it>\n ┘ PROMPT_BUDGET; older ones give way to `…: N earlier steps`
 *   A:                                  ← the model continues with its action and a newline
 *
 * An action is a shell line (`cat /data/notes.txt`), `submit`, or a tool call as JSON
 * (`{"name":"submit","arguments":{"answer":"3"}}`, the shape `actionText` writes). Fields are one
 * line each (newlines written `\n`, as the world model's prompt does); limits are UTF-8 bytes cut on
 * character boundaries, a cut observation ending with `…`. While the steps fit, the prompt of
 * step k+1 extends the prompt of step k by its action and observation, which is what lets training
 * pack a whole episode into one sequence.
 */
export const POLICY_PROMPT_FORMAT_VERSION = 1;

export const POLICY_PROMPT_LIMITS = Object.freeze({
  goalBytes: 512,
  screenBytes: 160,
  actionBytes: 160,
  /** The prompt at most, leaving room for an action in a 1,024-token byte-level context. */
  promptBytes: 860,
});

/** One earlier step as the policy remembers it: its action line and what it saw next. */
export interface PolicyTurn {
  /** As the policy wrote it (one line, see `policyActionLine`). */
  action: string;
  observation: string;
}

export interface PolicyPromptInput {
  worldKind: World['kind'];
  goal: string;
  /** The first observation, before any action. */
  first: string;
  turns: readonly PolicyTurn[];
}

const encoder = new TextEncoder();

function bytes(text: string): number {
  return encoder.encode(text).length;
}

/** What the policy may do in a world of this kind (the `T:` line). */
export function policyToolsLine(kind: World['kind']): string {
  if (kind === 'sql') return 'sql, submit';
  if (kind === 'tool') return 'tool calls as JSON, submit';
  return 'bash, submit';
}

function screen(text: string): string {
  return cutMarked(oneLine(text), POLICY_PROMPT_LIMITS.screenBytes);
}

/** The prompt the model continues with its next action (see the format above). */
export function renderPolicyPrompt(input: PolicyPromptInput): string {
  const head = [
    `@policy ${input.worldKind}`,
    `G: ${cutMarked(oneLine(input.goal), POLICY_PROMPT_LIMITS.goalBytes)}`,
    `T: ${policyToolsLine(input.worldKind)}`,
    `O: ${screen(input.first)}`,
  ].join('\n');
  const tail = '\nA: ';
  const steps = input.turns.map(
    (turn) =>
      `\nA: ${truncateUtf8(turn.action, POLICY_PROMPT_LIMITS.actionBytes)}\nO: ${screen(turn.observation)}`,
  );
  // The newest steps matter most: keep as many as fit, newest first, and say how many went.
  let budget = POLICY_PROMPT_LIMITS.promptBytes - bytes(head) - bytes(tail);
  let kept = 0;
  for (let index = steps.length - 1; index >= 0; index -= 1) {
    const size = bytes(steps[index] ?? '');
    const marker = index === 0 ? 0 : bytes(`\n…: ${index} earlier steps`);
    if (size + marker > budget) break;
    budget -= size;
    kept += 1;
  }
  const dropped = steps.length - kept;
  const gap = dropped === 0 ? '' : `\n…: ${dropped} earlier steps`;
  return `${head}${gap}${steps.slice(dropped).join('')}${tail}`;
}

/**
 * A move as the policy writes it on its `A:` line, one line (`oneLine`), or null for a move no
 * policy should learn.
 */
export function policyActionLine(move: AgentMove): string | null {
  switch (move.kind) {
    case 'act':
      return oneLine(actionText(move.action));
    case 'submit':
      return move.answer === null
        ? 'submit'
        : JSON.stringify({ name: 'submit', arguments: { answer: move.answer } });
    case 'invalid':
      return null;
  }
}

const ToolCallLine = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.json()).default({}),
});

/** Quoted in a reason: enough to recognise the output, never the whole of a runaway one. */
function quoted(text: string): string {
  return JSON.stringify(cutMarked(text, 120));
}

/**
 * The move a model's action line stands for: a JSON object is a tool call (`name`, `arguments`),
 * anything else a shell line or `submit [answer]`. Output that says nothing usable is an invalid
 * move with the reason, which the rollout counts as a failed step (never an exception).
 */
export function parsePolicyAction(world: World, line: string): AgentMove {
  const text = line.trim();
  if (text === '') return { kind: 'invalid', reason: 'the model wrote an empty action' };
  if (text.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return {
        kind: 'invalid',
        reason: `the model's action is neither a shell line nor a JSON tool call: ${quoted(text)}`,
      };
    }
    const call = ToolCallLine.safeParse(json);
    if (!call.success)
      return {
        kind: 'invalid',
        reason: `the model's tool call needs "name" and an "arguments" object: ${quoted(text)}`,
      };
    return moveFromToolCall(world, call.data.name, call.data.arguments);
  }
  return moveFromText(world, fromOneLine(text));
}

/**
 * One episode's memory as the prompt shows it: the goal, the first screen, and each action with
 * what the policy saw after it. The ONNX policy and the training exporter both keep it, so the
 * prompt of a step is rendered by the same code in play and in training.
 */
export interface PolicyTranscript {
  /** The prompt for the next action, given what the policy sees now (called once per step). */
  prompt(observation: string): string;
  /** The action line the policy wrote (raw, for an unparseable one) after the last prompt. */
  took(action: string): void;
}

export function policyTranscript(goal: string, world: World): PolicyTranscript {
  let first: string | null = null;
  let pending: string | null = null;
  const turns: PolicyTurn[] = [];
  return {
    prompt(observation) {
      // What the policy sees now is what the previous action led to (or the first screen).
      if (first === null) first = observation;
      else if (pending !== null) turns.push({ action: pending, observation });
      pending = null;
      return renderPolicyPrompt({ worldKind: world.kind, goal, first, turns });
    },
    took(action) {
      pending = action;
    },
  };
}
