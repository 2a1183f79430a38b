import { FINISH_REASONS, type FinishReason } from '@terrarium/inference';

/**
 * How a prediction ended, in one of two vocabularies: the decoder's own (a local model, in the
 * browser or on the server: `eos` when it wrote its end-of-text token, `cycle`, …) or OpenAI's
 * (`stop`, `length`), which is all an upstream endpoint says.
 */
export type Finish =
  { vocabulary: 'decoder'; reason: FinishReason } | { vocabulary: 'openai'; reason: string };

const DECODER_WORDS: Readonly<Record<FinishReason, string>> = {
  eos: 'end of text',
  stop: 'a stop sequence',
  length: 'the token budget',
  context: 'a full context',
  reference: 'the first neighbor’s answer, whole',
  cycle: 'repetition',
};

const OPENAI_WORDS: Readonly<Record<string, string>> = {
  // The playground sends no stop sequences: a stop is the model's own end.
  stop: 'end of text',
  length: 'the token budget',
  content_filter: 'the content filter',
};

function isFinishReason(reason: unknown): reason is FinishReason {
  return FINISH_REASONS.some((known) => known === reason);
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

/**
 * How a server answer ended. `/v1/chat/completions` says it in OpenAI's words, which fold a local
 * model's end of text, repetition and the rest into `stop`; its `terrarium.provenance` keeps the
 * decoder's own reason, read here so that one decode reads the same on the server and in the
 * browser (walk 42 saw "eos" beside "stop").
 */
export function serverFinish(spec: string, provenance: unknown, openaiReason: string): Finish {
  const decoderReason = field(field(provenance, 'detail'), 'finishReason');
  return spec.startsWith('onnx:') && isFinishReason(decoderReason)
    ? { vocabulary: 'decoder', reason: decoderReason }
    : { vocabulary: 'openai', reason: openaiReason };
}

/** What the playground's outcome line shows after "stopped at". */
export function finishInWords(finish: Finish): string {
  return finish.vocabulary === 'decoder'
    ? DECODER_WORDS[finish.reason]
    : (OPENAI_WORDS[finish.reason] ?? finish.reason);
}
