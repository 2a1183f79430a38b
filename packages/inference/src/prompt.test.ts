import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Action } from '@terrarium/schema';
import { buildRetrievalIndex, predictionInputs, type Transition } from '@terrarium/worlds';
import { createHfTokenizer } from './hf-tokenizer';
import { BUNDLED_MODEL_FOLDER } from './node/load-model-folder';
import {
  actionValues,
  buildPrompt,
  earlierTransition,
  observationGrammar,
  PROMPT_BUDGET,
  PROMPT_MARKERS,
  PROMPT_NEIGHBORS,
  promptFormatOf,
  promptNeighbors,
} from './prompt';
import { keyedTrajectories, TAU2_RETAIL } from './testing/held-out';
import { byteTokenizer } from './tokenizer';

const call = (name: string, args: Record<string, string | string[]>): Action => ({
  type: 'tool_call',
  name,
  arguments: args,
  callId: null,
});

const transition = (action: Action, content: string): Transition => ({
  action,
  observation: { kind: 'text', content, callId: null },
});

/** A long text of distinct words, so that no budget holds it. */
const long = (seed: string): string =>
  Array.from({ length: 3000 }, (_, i) => `${seed}${i}`).join(' ');

const bundledTokenizer = async () =>
  createHfTokenizer(
    JSON.parse(await readFile(join(BUNDLED_MODEL_FOLDER, 'tokenizer.json'), 'utf8')),
  );

describe('the earlier transition a prompt shows', () => {
  it('names the values of an action: tool arguments at any depth, or a command’s words', () => {
    expect(actionValues(call('f', { order_id: '#W1234', item_ids: ['111', '22'] }))).toEqual([
      '#W1234',
      '111',
    ]);
    expect(
      actionValues({ type: 'command', command: 'cat /etc/hosts ab', interpreter: 'bash' }),
    ).toEqual(['/etc/hosts']);
  });

  it('is the one naming most of the action’s values, else the latest', () => {
    const user = transition(call('get_user', { id: 'u_1' }), '{"orders": ["#W1", "#W2"]}');
    const other = transition(call('get_product', { id: 'p_9' }), '{"name": "Kettle"}');
    const latest = transition(call('calculate', { expression: '1 + 2' }), '3.0');
    expect(earlierTransition([user, other, latest], call('get_order', { id: '#W2' }))).toBe(user);
    expect(earlierTransition([user, other, latest], call('get_order', { id: '#W9' }))).toBe(latest);
    expect(earlierTransition([], call('get_order', { id: '#W9' }))).toBeUndefined();
  });
});

const recorded = (observation: string) => ({ action: call('get_order', {}), observation });

describe('the grammar a prediction is held to', () => {
  it('is JSON when the best recorded answer is a JSON object or array, in any domain', () => {
    expect(observationGrammar([recorded(' {"a": 1}'), recorded('x')], 'tool')).toBe('json');
    expect(observationGrammar([recorded('[1, 2]')], 'swe')).toBe('json');
  });

  it('for tool APIs otherwise, JSON only once the model opens an object or array', () => {
    const bests = ['user_123', '{"cut": ', '42', 'Error: no such order'];
    expect(bests.map((best) => observationGrammar([recorded(best)], 'tool'))).toEqual(
      bests.map(() => 'json-if-opened'),
    );
    expect(observationGrammar([], 'tool')).toBe('json-if-opened');
  });

  it('elsewhere free text, since terminal output may start with a bracket', () => {
    expect(observationGrammar([recorded('[File: /repo/a.py (12 lines total)]')], 'swe')).toBe(
      undefined,
    );
    expect(observationGrammar([], 'terminal')).toBe(undefined);
  });
});

describe('prompt format 3', () => {
  it('lays out the earlier transition, the neighbors and the action with marker tokens, fields verbatim', async () => {
    const tokenizer = await bundledTokenizer();
    const user = transition(call('get_user_details', { user_id: 'ana_3' }), 'orders: #W2\nok');
    const prompt = buildPrompt(
      {
        domain: 'tool',
        history: [user],
        action: call('get_order_details', { order_id: '#W2' }),
        neighbors: [
          {
            action: call('get_order_details', { order_id: '#W1' }),
            observation: '{"id": "#W1",\n"n": 1}',
          },
          { action: call('get_order_details', { order_id: '#W9' }), observation: 'a\\b' },
          {
            action: call('get_order_details', { order_id: '#W7' }),
            observation: 'third is dropped',
          },
        ],
      },
      tokenizer,
    );
    expect(prompt.text).toBe(
      [
        '@tool\n',
        '<|P|>{"name":"get_user_details","arguments":{"user_id":"ana_3"}}',
        '<|H|>orders: #W2\nok',
        '<|N|>{"name":"get_order_details","arguments":{"order_id":"#W1"}}',
        '<|R|>{"id": "#W1",\n"n": 1}',
        '<|N|>{"name":"get_order_details","arguments":{"order_id":"#W9"}}',
        '<|R|>a\\b',
        '<|A|>{"name":"get_order_details","arguments":{"order_id":"#W2"}}',
        '<|O|>',
      ].join(''),
    );
    // Each marker is one special token, so no observation text can imitate one.
    for (const marker of Object.values(PROMPT_MARKERS)) {
      expect(tokenizer.specialTokenId(marker)).toBeTypeOf('number');
    }
    expect(prompt.ids.filter((id) => id === tokenizer.specialTokenId('<|R|>'))).toHaveLength(2);
    // The text encodes back to the same ids (the markers are matched as special tokens).
    expect(tokenizer.encode(prompt.text)).toEqual(prompt.ids);
  });

  it('cuts long fields with <|cut|>, stays within its token budget, and its text encodes back to its ids', async () => {
    const tokenizer = await bundledTokenizer();
    const neighbor = { action: call('lookup', { q: long('n') }), observation: long('r') };
    const prompt = buildPrompt(
      {
        domain: 'text-game',
        history: [transition(call('lookup', { q: long('p') }), long('h'))],
        action: call('lookup', { q: long('a') }),
        neighbors: [neighbor, neighbor],
      },
      tokenizer,
    );
    expect(prompt.ids.length).toBeLessThanOrEqual(PROMPT_BUDGET.prompt);
    const cut = tokenizer.specialTokenId('<|cut|>');
    // Cut: the earlier action and observation, both neighbor actions, both neighbor
    // observations, and the action.
    expect(prompt.ids.filter((id) => id === cut)).toHaveLength(7);
    const markers = prompt.ids.filter(
      (id) => tokenizer.specialTokenId(tokenizer.describe([id])) === id,
    );
    expect(markers.map((id) => tokenizer.describe([id]))).toEqual([
      '<|P|>',
      '<|cut|>',
      '<|H|>',
      '<|cut|>',
      '<|N|>',
      '<|cut|>',
      '<|R|>',
      '<|cut|>',
      '<|N|>',
      '<|cut|>',
      '<|R|>',
      '<|cut|>',
      '<|A|>',
      '<|cut|>',
      '<|O|>',
    ]);
    expect(tokenizer.encode(prompt.text)).toEqual(prompt.ids);
    // A cut through multi-byte characters keeps whole characters only.
    const wide = buildPrompt(
      {
        domain: 'tool',
        history: [],
        action: call('f', { q: '日本😀é'.repeat(400) }),
        neighbors: [],
      },
      tokenizer,
    );
    expect(wide.text).not.toContain('\uFFFD');
    expect(tokenizer.encode(wide.text)).toEqual(wide.ids);
  });

  it('writes the markers as text for a tokenizer without them (a model folder of another kind)', () => {
    const prompt = buildPrompt(
      { domain: 'tool', history: [], action: call('f', {}), neighbors: [] },
      byteTokenizer,
    );
    expect(prompt.text).toBe('@tool\n<|A|>{"name":"f","arguments":{}}<|O|>');
  });

  it('reads the prompt format from config.json and refuses a Terrarium folder of an older one', () => {
    expect(promptFormatOf({ terrarium: { promptFormatVersion: 3 } })).toBe(3);
    expect(promptFormatOf({ model_type: 'gpt2' })).toBe(3);
    expect(() => promptFormatOf({ terrarium: { promptFormatVersion: 2 } })).toThrow(
      'the model was trained on prompt format 2; this version of Terrarium builds format 3',
    );
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
