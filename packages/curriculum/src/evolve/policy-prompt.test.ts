import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import type { AgentMove } from '../tasks/episode';
import { Task } from '../tasks/task';
import {
  parsePolicyAction,
  policyActionLine,
  policyTranscript,
  POLICY_PROMPT_LIMITS,
  renderPolicyPrompt,
} from './policy-prompt';
import { evolvableWorldFactory, SCRATCH_EVOLVABLE } from './world-source';

const createWorld = evolvableWorldFactory([SCRATCH_EVOLVABLE]);
const lastLine = Task.parse(BUILTIN_TASKS[0]);
const world = createWorld(lastLine.world, 0);

describe('the policy prompt', () => {
  it('shows the goal, the tools, the first screen and every earlier step, oldest first', () => {
    const transcript = policyTranscript(lastLine.goal, world);
    const first = transcript.prompt('');
    transcript.took('cat /data/notes.txt');
    const second = transcript.prompt('alpha\nbravo\ncharlie\n');
    expect(first).toBe(
      '@policy terminal\nG: Write the last line of /data/notes.txt into /data/last.txt, then submit.\nT: bash, submit\nO: \nA: ',
    );
    expect(second).toBe(`${first}cat /data/notes.txt\nO: alpha\\nbravo\\ncharlie\\n\nA: `);
  });

  it('keeps the newest steps within its budget and says how many earlier ones it left out', () => {
    const turns = Array.from({ length: 30 }, (_, index) => ({
      action: `echo step-${index} > /tmp/step-${index}.txt`,
      observation: `wrote line ${index}\n`,
    }));
    const prompt = renderPolicyPrompt({ worldKind: 'terminal', goal: 'Goal.', first: '', turns });
    expect(new TextEncoder().encode(prompt).length).toBeLessThanOrEqual(
      POLICY_PROMPT_LIMITS.promptBytes,
    );
    const lines = prompt.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      '@policy terminal',
      'G: Goal.',
      'T: bash, submit',
      'O: ',
      '…: 16 earlier steps',
    ]);
    expect(lines.slice(5, 7)).toEqual([
      'A: echo step-16 > /tmp/step-16.txt',
      'O: wrote line 16\\n',
    ]);
    expect(lines.at(-1)).toBe('A: ');
  });

  it('cuts a long screen with a mark, on a character boundary', () => {
    const prompt = renderPolicyPrompt({
      worldKind: 'sql',
      goal: 'Count.',
      first: 'é'.repeat(200),
      turns: [],
    });
    expect(prompt).toBe(`@policy sql\nG: Count.\nT: sql, submit\nO: ${'é'.repeat(78)}…\nA: `);
  });
});

describe('policy action lines', () => {
  it('writes moves as the model is trained to write them, and reads them back', () => {
    const moves: AgentMove[] = [
      {
        kind: 'act',
        action: { type: 'command', command: 'wc -l /data/notes.txt', interpreter: 'bash' },
      },
      { kind: 'submit', answer: null },
      { kind: 'submit', answer: '3' },
      {
        kind: 'act',
        action: { type: 'command', command: "printf 'a\\nb'\ncat x", interpreter: 'bash' },
      },
    ];
    const lines = moves.map((move) => policyActionLine(move));
    expect(lines).toEqual([
      'wc -l /data/notes.txt',
      'submit',
      '{"name":"submit","arguments":{"answer":"3"}}',
      // One line: the prompt's escaping (`\n`, `\\`), undone when the line is read.
      "printf 'a\\\\nb'\\ncat x",
    ]);
    expect(lines.map((line) => parsePolicyAction(world, line ?? ''))).toEqual(moves);
    expect(policyActionLine({ kind: 'invalid', reason: 'x' })).toBeNull();
  });

  it('turns output that says nothing usable into an invalid move with the reason', () => {
    expect(
      [
        '',
        '{"name": "bash", "arguments": {"command": ',
        '{"arguments": {}}',
        '{"name":"python","arguments":{}}',
      ].map((line) => parsePolicyAction(world, line)),
    ).toEqual([
      { kind: 'invalid', reason: 'the model wrote an empty action' },
      {
        kind: 'invalid',
        reason:
          'the model\'s action is neither a shell line nor a JSON tool call: "{\\"name\\": \\"bash\\", \\"arguments\\": {\\"command\\":"',
      },
      {
        kind: 'invalid',
        reason:
          'the model\'s tool call needs "name" and an "arguments" object: "{\\"arguments\\": {}}"',
      },
      { kind: 'invalid', reason: 'unknown tool python; use bash or submit' },
    ]);
  });
});
