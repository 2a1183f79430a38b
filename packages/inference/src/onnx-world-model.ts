import {
  answeredCallId,
  predictedKind,
  type Now,
  type Prediction,
  type WorldModel,
} from '@terrarium/worlds';
import type { Decoder } from './decoder';
import { PROMPT_FORMAT_VERSION, renderPrompt } from './prompt';

export interface OnnxWorldModelOptions {
  decoder: Decoder;
  /** Shown in provenance, e.g. `terrarium-wm-tiny`. */
  id: string;
  /** Where the session runs (`onnxruntime-node`, `webgpu`, `wasm`…), shown in provenance. */
  runtime?: string;
  now?: Now;
}

/** Default output budget; the observation also stops at the end of the context. */
const DEFAULT_MAX_TOKENS = 256;

/** A local decoder-only model as a simulator: the training prompt in, the observation out. */
export function createOnnxWorldModel({
  decoder,
  id,
  runtime,
  now = () => performance.now(),
}: OnnxWorldModelOptions): WorldModel {
  return {
    id,
    async predict(context, history, action, options = {}): Promise<Prediction> {
      const started = now();
      const prompt = renderPrompt(context.domain, history, action);
      const result = await decoder.generate(prompt, {
        maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
        temperature: options.temperature ?? 0,
        seed: options.seed ?? 0,
        ...(options.stop === undefined ? {} : { stop: options.stop }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.onToken === undefined ? {} : { onToken: options.onToken }),
      });
      return {
        observation: {
          kind: predictedKind(result.text, context.domain),
          content: result.text,
          callId: answeredCallId(action),
        },
        usage: { inputTokens: result.promptTokens, outputTokens: result.tokens.length },
        latencyMs: now() - started,
        provenance: {
          backend: 'onnx',
          cache: null,
          model: id,
          detail: {
            finishReason: result.finishReason,
            promptFormat: PROMPT_FORMAT_VERSION,
            ...(runtime === undefined ? {} : { runtime }),
          },
        },
      };
    },
  };
}
