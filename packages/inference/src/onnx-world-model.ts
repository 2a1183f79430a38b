import type { Action } from '@terrarium/schema';
import {
  answeredCallId,
  predictedKind,
  type Now,
  type Prediction,
  type SimContext,
  type Transition,
  type WorldModel,
} from '@terrarium/worlds';
import type { Decoder } from './decoder';
import {
  PROMPT_FORMAT_VERSION,
  renderPrompt,
  type PromptFormatVersion,
  type PromptNeighbor,
} from './prompt';

/** Where a v2 prompt's recorded transitions come from (e.g. `promptNeighbors` over a dataset's index). */
export type NeighborSource = (
  context: SimContext,
  history: readonly Transition[],
  action: Action,
) => PromptNeighbor[] | Promise<PromptNeighbor[]>;

export interface OnnxWorldModelOptions {
  decoder: Decoder;
  /** Shown in provenance, e.g. `terrarium-wm-tiny`. */
  id: string;
  /** Where the session runs (`onnxruntime-node`, `webgpu`, `wasm`…), shown in provenance. */
  runtime?: string;
  /** The format the model was trained on (its config's `terrarium.promptFormatVersion`); default 2. */
  promptFormat?: PromptFormatVersion;
  /**
   * The retrieved context of a v2 prompt. Without it a v2 model is prompted with no neighbors,
   * which it was trained to handle but answers worse (models/README.md, "no context").
   */
  neighbors?: NeighborSource;
  now?: Now;
}

/** Default output budget; the observation also stops at the end of the context. */
const DEFAULT_MAX_TOKENS = 256;

/** A local decoder-only model as a simulator: the training prompt in, the observation out. */
export function createOnnxWorldModel({
  decoder,
  id,
  runtime,
  promptFormat = PROMPT_FORMAT_VERSION,
  neighbors,
  now = () => performance.now(),
}: OnnxWorldModelOptions): WorldModel {
  return {
    id,
    async predict(context, history, action, options = {}): Promise<Prediction> {
      const started = now();
      const found =
        promptFormat === 2 && neighbors !== undefined
          ? await neighbors(context, history, action)
          : [];
      const prompt = renderPrompt(
        { domain: context.domain, history, action, neighbors: found },
        promptFormat,
      );
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
            promptFormat,
            ...(promptFormat === 2 ? { neighbors: found.length } : {}),
            ...(runtime === undefined ? {} : { runtime }),
          },
        },
      };
    },
  };
}
