import { createReadStream } from 'node:fs';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import {
  createReplayWorldModel,
  DEFAULT_TEMPLATES,
  predictionInputs,
  renderMessages,
  selectTemplate,
} from '@terrarium/worlds';
import { describe, expect, it } from 'vitest';
import { asChatCarriesIt, parseChatToSimInput, parseSystemMessage } from './chat-input';

async function load(file: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return trajectories;
}

/**
 * Every transition of a real file, rendered as a chat client would send it, replayed by an index
 * over `indexed`: how many are found and come back exactly as recorded.
 */
async function replayThroughChat(
  trajectories: Trajectory[],
  indexed: Trajectory[],
): Promise<{ transitions: number; exact: number }> {
  const replay = createReplayWorldModel(indexed);
  let transitions = 0;
  let exact = 0;
  for (const trajectory of trajectories) {
    const template = selectTemplate(DEFAULT_TEMPLATES, trajectory.domain);
    for (const input of predictionInputs(trajectory)) {
      const chat = parseChatToSimInput(
        renderMessages(template, input.context, input.history, input.action),
      );
      const prediction = await replay.predict(chat.context, chat.history, chat.action);
      transitions++;
      const hit = prediction.provenance.cache === 'hit';
      if (hit && prediction.observation.content === input.expected.content) exact++;
    }
  }
  return { transitions, exact };
}

describe('parseChatToSimInput', () => {
  it('keeps a system message in another shape whole', () => {
    expect(parseSystemMessage('You simulate a Linux shell.')).toEqual({
      domain: 'tool',
      task: null,
      systemPrompt: 'You simulate a Linux shell.',
      tools: [],
    });
    expect(
      parseSystemMessage(
        'Intro.\n\nDomain: database\n\n# The task given to the agent\nCount rows.',
      ),
    ).toEqual({ domain: 'database', task: 'Count rows.', systemPrompt: null, tools: [] });
  });

  it('names the message at fault', () => {
    expect(() => parseChatToSimInput([])).toThrow('messages: expected a non-empty array');
    expect(() =>
      parseChatToSimInput([
        { role: 'user', content: 'ls' },
        { role: 'user', content: 'pwd' },
        { role: 'user', content: 'whoami' },
      ]),
    ).toThrow('messages[1].role: expected "assistant" (the observation)');
    expect(() => parseChatToSimInput([{ role: 'user', content: 3 }])).toThrow(
      'messages[0].content: expected a string or text parts',
    );
    // A user message without content has no action to look up; an assistant's may have none.
    expect(() => parseChatToSimInput([{ role: 'user' }])).toThrow(
      'messages[0].content: a user message carries an action: expected a string or text parts',
    );
    expect(
      parseChatToSimInput([
        { role: 'user', content: 'ls' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'pwd' },
      ]).history,
    ).toHaveLength(1);
  });
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `parseChatToSimInput on InterCode ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('reads back every transition of InterCode bash (shell commands, terminal template)', async () => {
      const trajectories = await load(
        sharedDataPath(
          'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_1.json',
        ),
      );
      expect(await replayThroughChat(trajectories, trajectories.map(asChatCarriesIt))).toEqual({
        transitions: 401,
        exact: 401,
      });
      // Indexed as recorded instead, the commands' interpreter (lost in the text) misses them.
      expect(await replayThroughChat(trajectories, trajectories)).toEqual({
        transitions: 401,
        exact: 0,
      });
    });
  },
);
