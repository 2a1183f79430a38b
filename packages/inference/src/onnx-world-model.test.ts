import { buildRetrievalIndex, predictionInputs, type RetrievalIndex } from '@terrarium/worlds';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from './node';
import { createOnnxWorldModel } from './onnx-world-model';
import { promptNeighbors } from './prompt';
import {
  heldOutTau2Trajectory,
  keyedTrajectories,
  TAU2_RETAIL,
  type KeyedTrajectory,
} from './testing/held-out';
import type { Decoder } from './decoder';

let decoder: Decoder;
let heldOut: KeyedTrajectory;
let index: RetrievalIndex;

beforeAll(async () => {
  decoder = (await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER)).decoder;
  heldOut = await heldOutTau2Trajectory();
  // The other tau2 retail runs as the corpus (tasks other than the held-out one).
  index = buildRetrievalIndex(
    (await keyedTrajectories(TAU2_RETAIL))
      .filter(({ task }) => task !== heldOut.task)
      .map(({ trajectory }) => trajectory),
  );
});

describe('the bundled model as a world model', () => {
  it('predicts a non-empty observation for a held-out tau2 step, with usage and provenance', async () => {
    let clock = 0;
    const model = createOnnxWorldModel({
      decoder,
      id: 'terrarium-wm-tiny',
      runtime: 'onnxruntime-node',
      neighbors: (context, history, action) => promptNeighbors(index, context, history, action),
      now: () => (clock += 5),
    });
    const input = [...predictionInputs(heldOut.trajectory)][1];
    if (input === undefined)
      throw new Error('the held-out trajectory has fewer than 2 transitions');
    const streamed: string[] = [];
    const prediction = await model.predict(input.context, input.history, input.action, {
      maxTokens: 64,
      onToken: (piece) => streamed.push(piece),
    });
    expect(prediction.observation.content.trim()).not.toBe('');
    expect(streamed.join('')).toBe(prediction.observation.content);
    expect(prediction.observation.callId).toBe(
      input.action.type === 'tool_call' ? input.action.callId : null,
    );
    expect(prediction.usage.outputTokens).toBeGreaterThan(0);
    expect(prediction.usage.outputTokens).toBeLessThanOrEqual(64);
    expect(prediction.latencyMs).toBe(5);
    expect(prediction.provenance).toMatchObject({
      backend: 'onnx',
      cache: null,
      model: 'terrarium-wm-tiny',
    });
    expect(prediction.provenance.detail).toMatchObject({
      runtime: 'onnxruntime-node',
      promptFormat: 3,
      neighbors: 2,
    });

    const again = await model.predict(input.context, input.history, input.action, {
      maxTokens: 64,
    });
    expect(again.observation).toEqual(prediction.observation);
  });
});
