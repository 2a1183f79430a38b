import { z } from 'zod';

/** The fields of a transformers.js / Optimum `config.json` the decoder needs (GPT-2 or Llama names). */
const RawConfig = z.object({
  model_type: z.string(),
  vocab_size: z.number().int().positive(),
  n_layer: z.number().int().positive().optional(),
  num_hidden_layers: z.number().int().positive().optional(),
  n_head: z.number().int().positive().optional(),
  num_attention_heads: z.number().int().positive().optional(),
  num_key_value_heads: z.number().int().positive().optional(),
  n_embd: z.number().int().positive().optional(),
  hidden_size: z.number().int().positive().optional(),
  n_positions: z.number().int().positive().optional(),
  max_position_embeddings: z.number().int().positive().optional(),
  eos_token_id: z.union([z.number().int(), z.array(z.number().int())]).optional(),
  bos_token_id: z.number().int().optional(),
});

export interface ModelConfig {
  modelType: string;
  vocabSize: number;
  layers: number;
  /** Heads of the key/value cache (fewer than the attention heads with grouped-query attention). */
  kvHeads: number;
  headDim: number;
  contextLength: number;
  eosTokenIds: number[];
  bosTokenId: number | null;
}

export function parseModelConfig(json: unknown): ModelConfig {
  const raw = RawConfig.parse(json);
  const layers = raw.n_layer ?? raw.num_hidden_layers;
  const heads = raw.n_head ?? raw.num_attention_heads;
  const hidden = raw.n_embd ?? raw.hidden_size;
  const contextLength = raw.n_positions ?? raw.max_position_embeddings;
  if (
    layers === undefined ||
    heads === undefined ||
    hidden === undefined ||
    contextLength === undefined
  ) {
    throw new Error('config.json lacks the layer count, head count, hidden size or context length');
  }
  const eos = raw.eos_token_id;
  return {
    modelType: raw.model_type,
    vocabSize: raw.vocab_size,
    layers,
    kvHeads: raw.num_key_value_heads ?? heads,
    headDim: hidden / heads,
    contextLength,
    eosTokenIds: eos === undefined ? [] : Array.isArray(eos) ? eos : [eos],
    bosTokenId: raw.bos_token_id ?? null,
  };
}

const TerrariumBlock = z.object({
  terrarium: z
    .object({
      role: z.enum(['world-model', 'policy']).optional(),
      policyPromptFormatVersion: z.number().int().positive().optional(),
    })
    .optional(),
});

/** What a Terrarium model folder is for, from its config.json's `terrarium` block. */
export interface ModelRole {
  /** `policy`: it writes an agent's actions; otherwise (the default) it predicts observations. */
  role: 'world-model' | 'policy';
  /** The policy prompt format a policy was trained on (`policyPromptFormatVersion`). */
  policyPromptFormat: number | null;
}

export function modelRoleOf(config: unknown): ModelRole {
  const parsed = TerrariumBlock.safeParse(config);
  const block = parsed.success ? parsed.data.terrarium : undefined;
  return {
    role: block?.role ?? 'world-model',
    policyPromptFormat: block?.policyPromptFormatVersion ?? null,
  };
}
