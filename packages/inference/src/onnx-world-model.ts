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
import { ANCHOR_BIAS, neighborAnchor } from './anchor';
import { canConstrain, type Decoder, type GenerateResult } from './decoder';
import {
  buildPrompt,
  observationGrammar,
  PROMPT_FORMAT_VERSION,
  PROMPT_NEIGHBORS,
  type PromptNeighbor,
} from './prompt';

/** Where a prompt's recorded transitions come from (e.g. `promptNeighbors` over a dataset's index). */
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
  /**
   * The retrieved context of the prompt. Without it the model is prompted with no neighbors, which
   * it was trained to handle but answers worse (models/README.md, "no context").
   */
  neighbors?: NeighborSource;
  /**
   * How strongly decoding leans on the first neighbor's answer (`Anchor`), in nats: its next token
   * is kept unless the model finds another more than e^bias times likelier. 0 decodes the model
   * alone. Default `ANCHOR_BIAS`.
   */
  anchorBias?: number;
  now?: Now;
}

/**
 * Default output budget of a predicted observation: the bundled model's whole context, so that an
 * answer ends by itself or where the context does (what the prompt leaves: at least 2,048 − 1,280),
 * never at a lower budget of its own. At the context's end the decoder can do better than a cut:
 * a first neighbor's answer that the context cannot hold is the prediction, whole (the decoder's
 * `anchor`; the provenance's `finishReason` is then `reference`).
 */
export const OBSERVATION_MAX_TOKENS = 2048;

/** A local decoder-only model as a simulator: the training prompt in, the observation out. */
export function createOnnxWorldModel({
  decoder,
  id,
  runtime,
  neighbors,
  anchorBias = ANCHOR_BIAS,
  now = () => performance.now(),
}: OnnxWorldModelOptions): WorldModel {
  return {
    id,
    async predict(context, history, action, options = {}): Promise<Prediction> {
      const started = now();
      const found = neighbors === undefined ? [] : await neighbors(context, history, action);
      const prompt = buildPrompt(
        { domain: context.domain, history, action, neighbors: found },
        decoder.tokenizer,
      );
      const grammar = canConstrain(decoder.tokenizer)
        ? observationGrammar(found, context.domain)
        : undefined;
      const anchor = neighborAnchor(found, anchorBias);
      const temperature = options.temperature ?? 0;
      // Sampling without a seed draws a fresh one, as OpenAI-compatible servers do (RL rollouts
      // need different samples); the seed used is in the provenance, so any sample can be redone.
      const seed = options.seed ?? (temperature > 0 ? freshSeed() : 0);
      const result = await decoder.generate(prompt.ids, {
        ...(grammar === undefined ? {} : { grammar }),
        ...(anchor === undefined ? {} : { anchor }),
        maxTokens: options.maxTokens ?? OBSERVATION_MAX_TOKENS,
        temperature,
        seed,
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
            neighbors: Math.min(found.length, PROMPT_NEIGHBORS),
            grammar: result.heldToJson ? 'json' : null,
            anchorBias: anchor?.bias ?? 0,
            ...(temperature > 0 ? { seed } : {}),
            ...outputEndDetail(result),
            ...(runtime === undefined ? {} : { runtime }),
          },
        },
      };
    },
  };
}

/** A 32-bit seed from the platform's random source (Node and browsers alike). */
function freshSeed(): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
}

/**
 * How an output was ended beyond its tokens, for a prediction's provenance (the server's simulator
 * and the browser's alike): what a grammar closed it with, and how many characters of the first
 * neighbor's answer ended an output cut at a cycle.
 */
export function outputEndDetail(result: Pick<GenerateResult, 'closing' | 'referenceTail'>): {
  closedWith?: string;
  endedWithReference?: number;
} {
  return {
    ...(result.closing === '' ? {} : { closedWith: result.closing }),
    ...(result.referenceTail === '' ? {} : { endedWithReference: result.referenceTail.length }),
  };
}
