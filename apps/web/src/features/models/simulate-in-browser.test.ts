// @vitest-environment node
// Node, not happy-dom: the model files are read from disk, and BUNDLED_MODEL_FOLDER is a file URL.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOnnxWorldModel, promptNeighbors } from '@terrarium/inference';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '@terrarium/inference/node';
import {
  heldOutTau2Trajectory,
  keyedTrajectories,
  TAU2_RETAIL,
} from '@terrarium/inference/testing';
import { createDecodeClient, endpointOf, serveDecoding } from '@terrarium/inference/web';
import {
  buildRetrievalIndex,
  leaveOut,
  predictionInputAt,
  predictionInputs,
} from '@terrarium/worlds';
import { describe, expect, it } from 'vitest';
import { browserSimSpec, isBrowserSimSpec, simulateInBrowser } from './simulate-in-browser';

async function bundledFile(path: string, name: string): Promise<File> {
  return new File([await readFile(join(BUNDLED_MODEL_FOLDER, path))], name);
}

describe('browserSimSpec', () => {
  it('names a browser model so that it is never taken for a server spec', () => {
    expect(browserSimSpec('terrarium-wm-tiny')).toBe('onnx:browser/terrarium-wm-tiny');
    expect(isBrowserSimSpec('onnx:browser/terrarium-wm-tiny')).toBe(true);
    expect(isBrowserSimSpec('onnx:models/terrarium-wm-tiny')).toBe(false);
  });
});

describe('simulateInBrowser', () => {
  it('predicts a held-out trajectory with onnxruntime-web as the server does with onnxruntime-node', async () => {
    const { trajectory } = await heldOutTau2Trajectory();
    const files = {
      config: await bundledFile('config.json', 'config.json'),
      model: await bundledFile('onnx/model.onnx', 'model.onnx'),
      tokenizer: await bundledFile('tokenizer.json', 'tokenizer.json'),
      tokenizerConfig: await bundledFile('tokenizer_config.json', 'tokenizer_config.json'),
    };
    // The neighbors the prompt shows, as the server's models.neighbors finds them: the file's
    // other trajectories, this one and its task's other trials left out.
    const index = buildRetrievalIndex(
      (await keyedTrajectories(TAU2_RETAIL)).map((keyed) => keyed.trajectory),
    );
    const exclude = leaveOut(trajectory.externalId, trajectory.task);
    const seen: number[] = [];
    // The decoding worker's service and client on the two ends of a real MessageChannel (a Node
    // test has no Web Worker); the picked files cross it as Blobs, as they cross into the worker.
    const channel = new MessageChannel();
    channel.port1.start();
    channel.port2.start();
    serveDecoding(endpointOf(channel.port2));
    const result = await simulateInBrowser(trajectory, {
      source: { kind: 'files', label: 'terrarium-wm-tiny', files },
      client: createDecodeClient(endpointOf(channel.port1)),
      executionProvider: 'wasm',
      maxSteps: 2,
      maxTokens: 24,
      neighbors: async (stepIndex) => {
        const input = predictionInputAt(trajectory, stepIndex);
        if (input === null) throw new Error(`step ${stepIndex} is not a transition`);
        return promptNeighbors(index, input.context, input.history, input.action, exclude);
      },
      onStep: (step) => seen.push(step.step),
    });
    expect(result.sim).toBe('onnx:browser/terrarium-wm-tiny');
    expect(result.steps).toHaveLength(2);
    expect(seen).toEqual(result.steps.map((step) => step.step));

    const server = createOnnxWorldModel({
      decoder: (await loadOnnxModelFolder()).decoder,
      id: 'onnx:terrarium-wm-tiny',
      neighbors: (context, history, action) =>
        promptNeighbors(index, context, history, action, exclude),
    });
    const inputs = [...predictionInputs(trajectory)].slice(0, 2);
    for (const [i, input] of inputs.entries()) {
      const step = result.steps[i];
      const expected = await server.predict(input.context, input.history, input.action, {
        maxTokens: 24,
      });
      expect(step?.predicted.content).toBe(expected.observation.content);
      expect(step?.real).toEqual(input.expected);
      expect(step?.provenance).toEqual({
        backend: 'onnx-browser',
        cache: null,
        model: 'terrarium-wm-tiny (wasm, fp32)',
      });
      expect(step?.error).toBe(null);
      expect(Object.keys(step?.scores ?? {})).toEqual(
        expect.arrayContaining(['exact-match', 'token-f1', 'content']),
      );
    }
    channel.port1.close();
  }, 120_000);
});
