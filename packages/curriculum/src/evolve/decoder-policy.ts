import type { Decoder } from '@terrarium/inference';
import type { AgentMove } from '../tasks/episode';
import type { Policy } from './policy';
import { parsePolicyAction, policyTranscript } from './policy-prompt';
import { hashSeed } from './random';

export interface DecoderPolicyOptions {
  /** A local language model (an ONNX model folder's decoder, in Node or the browser). */
  decoder: Pick<Decoder, 'generate'>;
  /** Shown with runs and rollouts, e.g. `onnx:models/terrarium-policy-tiny`. */
  name: string;
  /** 0 decodes greedily; above, seeded sampling (the rollout's seed and the turn). Default 0. */
  temperature?: number;
  /** Tokens an action may take at most (default 160, the prompt's action limit in bytes). */
  maxActionTokens?: number;
}

const DEFAULT_MAX_ACTION_TOKENS = 160;

/** Quoted in a reason: enough to recognise a runaway output. */
function start(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * A policy that is a language model trained on the policy prompt (`renderPolicyPrompt`): each
 * turn it is shown the goal, what it may do and the episode so far, and writes one action line.
 * Output that does not parse, or does not end within the action budget, is an invalid move with
 * the reason: the rollout counts it as a failed step and shows the model the reason next turn.
 */
export function decoderPolicy(options: DecoderPolicyOptions): Policy {
  const temperature = options.temperature ?? 0;
  const maxTokens = options.maxActionTokens ?? DEFAULT_MAX_ACTION_TOKENS;
  return {
    name: options.name,
    start(task, world, seed) {
      const transcript = policyTranscript(task.goal, world);
      let turn = 0;
      return {
        async next(observation): Promise<AgentMove> {
          const prompt = transcript.prompt(observation);
          const result = await options.decoder.generate(prompt, {
            maxTokens,
            temperature,
            seed: hashSeed(seed, turn),
            stop: ['\n'],
          });
          turn += 1;
          transcript.took(result.text);
          if (result.finishReason === 'cycle')
            return {
              kind: 'invalid',
              reason: `the model's action repeated itself until it was stopped: ${start(result.text)}`,
            };
          if (result.finishReason === 'length' || result.finishReason === 'context')
            return {
              kind: 'invalid',
              reason: `the model's action did not end within ${result.tokens.length} tokens: ${start(result.text)}`,
            };
          return parsePolicyAction(world, result.text);
        },
      };
    },
  };
}
