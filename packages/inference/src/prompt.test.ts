import { describe, expect, it } from 'vitest';
import type { Action } from '@terrarium/schema';
import { buildRetrievalIndex, predictionInputs } from '@terrarium/worlds';
import {
  PROMPT_NEIGHBORS,
  promptFormatOf,
  promptNeighbors,
  renderPrompt,
  truncateUtf8,
} from './prompt';
import { keyedTrajectories, TAU2_RETAIL } from './testing/held-out';

const call = (name: string, args: { [key: string]: string }): Action => ({
  type: 'tool_call',
  name,
  arguments: args,
  callId: null,
});

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe('prompt format', () => {
  it('cuts on character boundaries', () => {
    expect(truncateUtf8('ab€cd', 4)).toBe('ab');
    expect(truncateUtf8('ab€cd', 5)).toBe('ab€');
    expect(truncateUtf8('abc', 3)).toBe('abc');
  });

  it('version 1: renders the last two transitions, escaped to one line each, then the action', () => {
    const history = ['one', 'two', 'three'].map((name) => ({
      action: call(name, {}),
      observation: { kind: 'text' as const, content: `${name}\nok`, callId: null },
    }));
    const expected = [
      '@tool',
      'A: {"name":"two","arguments":{}}',
      'O: two\\nok',
      'A: {"name":"three","arguments":{}}',
      'O: three\\nok',
      'A: {"name":"find","arguments":{"q":"x"}}',
      'O: ',
    ].join('\n');
    expect(renderPrompt('tool', history, call('find', { q: 'x' }))).toBe(expected);
    expect(
      renderPrompt({ domain: 'tool', history, action: call('find', { q: 'x' }), neighbors: [] }, 1),
    ).toBe(expected);
  });

  it('version 1 stays within its limits whatever the lengths', () => {
    const long = 'x'.repeat(5000);
    const history = [0, 1].map(() => ({
      action: call(long, {}),
      observation: { kind: 'text' as const, content: long, callId: null },
    }));
    const prompt = renderPrompt('database', history, call(long, {}));
    // "@database\n" + 2 × ("A: " + 40 + "\n" + "O: " + 64 + "\n") + "A: " + 128 + "\nO: ".
    expect(bytes(prompt)).toBe(10 + 2 * 112 + 135);
  });

  it('version 2: the neighbors (best first, escaped), then the action; history is not rendered', () => {
    const prompt = renderPrompt({
      domain: 'tool',
      history: [
        {
          action: call('earlier', {}),
          observation: { kind: 'text', content: 'x', callId: null },
        },
      ],
      action: call('get_order', { id: '#W2' }),
      neighbors: [
        { action: call('get_order', { id: '#W1' }), observation: '{"id": "#W1",\n"n": 1}' },
        { action: call('get_order', { id: '#W9' }), observation: 'a\\b' },
        { action: call('get_order', { id: '#W7' }), observation: 'third is dropped' },
      ],
    });
    expect(prompt).toBe(
      [
        '@tool',
        'N: {"name":"get_order","arguments":{"id":"#W1"}}',
        'R: {"id": "#W1",\\n"n": 1}',
        'N: {"name":"get_order","arguments":{"id":"#W9"}}',
        'R: a\\\\b',
        'A: {"name":"get_order","arguments":{"id":"#W2"}}',
        'O: ',
      ].join('\n'),
    );
    expect(
      renderPrompt({ domain: 'tool', history: [], action: call('f', {}), neighbors: [] }),
    ).toBe('@tool\nA: {"name":"f","arguments":{}}\nO: ');
  });

  it('version 2 cuts long neighbor fields with an ellipsis and stays within 802 bytes', () => {
    const long = 'é'.repeat(3000);
    const neighbor = { action: call(long, {}), observation: long };
    const prompt = renderPrompt({
      domain: 'text-game',
      history: [],
      action: call(long, {}),
      neighbors: [neighbor, neighbor],
    });
    const lines = prompt.split('\n');
    expect(lines[1]?.endsWith('…')).toBe(true);
    expect(lines[2]?.endsWith('…')).toBe(true);
    // 2-byte characters cut on a boundary: an action is `{"name":"` (9 bytes) then é's, so a
    // neighbor action keeps 9 + 84 bytes + "…" (3) = 96, the current one 9 + 118 = 127; a neighbor
    // observation keeps 220 + 3 = 223. Each line adds its 3-byte tag.
    expect(lines.map(bytes)).toEqual([10, 99, 226, 99, 226, 130, 3]);
    expect(bytes(prompt)).toBe(10 + 2 * (99 + 226) + 130 + 3 + 6);
    expect(bytes(prompt)).toBeLessThanOrEqual(802);
  });

  it('reads the prompt format from config.json, 1 when it is not declared', () => {
    expect(promptFormatOf({ terrarium: { tokenizer: 'bytes', promptFormatVersion: 2 } })).toBe(2);
    expect(promptFormatOf({ terrarium: { promptFormatVersion: 1 } })).toBe(1);
    expect(promptFormatOf({ model_type: 'gpt2' })).toBe(1);
    expect(promptFormatOf(null)).toBe(1);
  });
});

describe('promptNeighbors on real tau2 retail runs', () => {
  it('returns the k nearest recorded calls of the same tool with their actions, never the left-out trajectory', async () => {
    const trajectories = (await keyedTrajectories(TAU2_RETAIL)).map(({ trajectory }) => trajectory);
    const index = buildRetrievalIndex(trajectories);
    const simulated = trajectories[0];
    if (simulated === undefined) throw new Error('no tau2 retail trajectory');
    const input = [...predictionInputs(simulated)].find(
      (candidate) =>
        candidate.action.type === 'tool_call' && candidate.action.name === 'get_order_details',
    );
    if (input === undefined || input.action.type !== 'tool_call')
      throw new Error('the first tau2 retail run has no get_order_details call');
    const kept = promptNeighbors(index, input.context, input.history, input.action);
    // With the trajectory in the corpus, the nearest neighbor is the recorded step itself.
    expect(kept[0]).toEqual({ action: input.action, observation: input.expected.content });
    const left = promptNeighbors(index, input.context, input.history, input.action, {
      excludeTrajectory: simulated.externalId,
    });
    expect(left).toHaveLength(PROMPT_NEIGHBORS);
    expect(
      left.map((n) => (n.action.type === 'tool_call' ? n.action.name : n.action.type)),
    ).toEqual(['get_order_details', 'get_order_details']);
    expect(left.some((n) => n.observation === input.expected.content)).toBe(false);
  });
});
