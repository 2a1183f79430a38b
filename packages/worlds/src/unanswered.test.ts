import { describe, expect, it } from 'vitest';
import { createCacheThenModelWorldModel } from './backends/cache-then-model';
import { createReplayWorldModel } from './backends/replay';
import { answeredOrThrow, unansweredReason, UnansweredError } from './unanswered';
import type { Prediction, WorldModel } from './world-model';

const CONTEXT = { domain: 'tool' as const, task: null, systemPrompt: null, tools: [] };
const ACTION = {
  type: 'tool_call' as const,
  name: 'get_user_details',
  arguments: { user_id: 'nobody' },
  callId: null,
};

/** A model that answers every action, as an endpoint would. */
const ANSWERING: WorldModel = {
  id: 'answering',
  predict: async (): Promise<Prediction> => ({
    observation: { kind: 'text', content: '{"ok": true}', callId: null },
    usage: { inputTokens: 3, outputTokens: 4 },
    latencyMs: 1,
    provenance: { backend: 'answering', cache: null },
  }),
};

describe('unansweredReason', () => {
  it('names why replay has no answer, and answeredOrThrow fails on it', async () => {
    const miss = await createReplayWorldModel([]).predict(CONTEXT, [], ACTION);
    expect(unansweredReason(miss.provenance)).toBe(
      'no recorded transition with this history and action in the dataset',
    );
    expect(() => answeredOrThrow(miss)).toThrow(
      new UnansweredError(
        'replay',
        'no recorded transition with this history and action in the dataset',
      ),
    );
  });

  it('passes a prediction that holds an answer, including cache-then-model’s model answers', async () => {
    const answered = await ANSWERING.predict(CONTEXT, [], ACTION);
    expect(unansweredReason(answered.provenance)).toBeNull();
    // Not cached, so its provenance says `miss`, but the model answered: an answer.
    const cached = createCacheThenModelWorldModel({ trajectories: [], model: ANSWERING });
    const fromModel = await cached.predict(CONTEXT, [], ACTION);
    expect(fromModel.provenance.cache).toBe('miss');
    expect(answeredOrThrow(fromModel)).toBe(fromModel);
  });

  it('fails cache-then-model when its own model had no answer either', async () => {
    const cached = createCacheThenModelWorldModel({
      trajectories: [],
      model: createReplayWorldModel([]),
    });
    const nothing = await cached.predict(CONTEXT, [], ACTION);
    expect(unansweredReason(nothing.provenance)).toBe(
      'no recorded transition with this history and action',
    );
  });
});
