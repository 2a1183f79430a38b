import type { Decoder, GenerateOptions, GenerateResult } from '@terrarium/inference';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { Task } from '../tasks/task';
import { decoderPolicy } from './decoder-policy';
import { rollout } from './rollout';
import { evolvableWorldFactory, SCRATCH_EVOLVABLE } from './world-source';

const createWorld = evolvableWorldFactory([SCRATCH_EVOLVABLE]);
const countLines = Task.parse(BUILTIN_TASKS[1]);

/**
 * Stands in for the model at its edge (the ONNX decoder itself is tested with the shipped weights
 * in packages/api): it answers each turn with the next of the given outputs, and keeps the prompts
 * and options it was called with.
 */
function scriptedDecoder(outputs: Pick<GenerateResult, 'text' | 'finishReason'>[]) {
  const calls: { prompt: string; options: GenerateOptions }[] = [];
  const decoder: Pick<Decoder, 'generate'> = {
    async generate(prompt, options = {}) {
      if (typeof prompt !== 'string') throw new Error('the policy prompts with text');
      calls.push({ prompt, options });
      const output = outputs[calls.length - 1] ?? { text: 'submit', finishReason: 'stop' };
      return {
        ...output,
        tokens: [...new TextEncoder().encode(output.text)],
        promptTokens: 0,
        closing: '',
        referenceTail: '',
        heldToJson: false,
      };
    },
  };
  return { decoder, calls };
}

describe('a language-model policy', () => {
  it('plays a task from the model’s action lines, stopping each at its newline', async () => {
    const { decoder, calls } = scriptedDecoder([
      { text: 'wc -l /data/notes.txt', finishReason: 'stop' },
      { text: '{"name":"submit","arguments":{"answer":"3"}}', finishReason: 'stop' },
    ]);
    const played = await rollout(
      countLines,
      decoderPolicy({ decoder, name: 'onnx:test' }),
      createWorld,
      5,
    );
    expect(played.steps.map((step) => step.action)).toEqual(['wc -l /data/notes.txt', 'submit 3']);
    expect(played.evaluation.passed).toBe(true);
    expect(calls.map((call) => call.options)).toEqual([
      { maxTokens: 160, temperature: 0, seed: expect.any(Number), stop: ['\n'] },
      { maxTokens: 160, temperature: 0, seed: expect.any(Number), stop: ['\n'] },
    ]);
    expect(
      calls[1]?.prompt.endsWith('A: wc -l /data/notes.txt\nO: 3 /data/notes.txt\\n\nA: '),
    ).toBe(true);
  });

  it('counts output that does not parse as a failed step with the reason, and plays on', async () => {
    const { decoder, calls } = scriptedDecoder([
      { text: '{"name": "bash", "arguments": {"command": "wc', finishReason: 'stop' },
      {
        text: 'echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        finishReason: 'length',
      },
      { text: '{"name":"python","arguments":{"code":"print(3)"}}', finishReason: 'stop' },
      { text: 'submit 4', finishReason: 'stop' },
    ]);
    const played = await rollout(
      countLines,
      decoderPolicy({ decoder, name: 'onnx:test' }),
      createWorld,
      0,
    );
    expect(played.steps.map((step) => [step.action, step.observation])).toEqual([
      [
        'invalid',
        'invalid move: the model\'s action is neither a shell line nor a JSON tool call: "{\\"name\\": \\"bash\\", \\"arguments\\": {\\"command\\": \\"wc"',
      ],
      [
        'invalid',
        'invalid move: the model\'s action did not end within 87 tokens: "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"',
      ],
      ['invalid', 'invalid move: unknown tool python; use bash or submit'],
      ['submit 4', ''],
    ]);
    expect(played.turns).toBe(4);
    expect(played.evaluation.passed).toBe(false);
    // The model is shown why its last action failed.
    expect(
      calls[3]?.prompt.endsWith(
        'A: {"name":"python","arguments":{"code":"print(3)"}}\nO: invalid move: unknown tool python; use bash or submit\nA: ',
      ),
    ).toBe(true);
  });
});
