import { FINISH_REASONS, type FinishReason } from '@terrarium/inference';

/**
 * How a prediction ended, in words, read the same for both places it can run. The browser's
 * decoder names its own reasons (`eos` when the model wrote its end-of-text token); the server
 * answers in OpenAI's words (`stop` for that same end, since the playground sends no stop
 * sequences). Shown raw, the two read as different outcomes of one decode (walk 42).
 */
const IN_THE_BROWSER: Readonly<Record<FinishReason, string>> = {
  eos: 'end of text',
  stop: 'a stop sequence',
  length: 'the token budget',
  context: 'a full context',
  reference: 'the first neighbor’s answer, whole',
  cycle: 'repetition',
};

const ON_THE_SERVER: Readonly<Record<string, string>> = {
  stop: 'end of text',
  length: 'the token budget',
  content_filter: 'the content filter',
};

function isFinishReason(reason: string): reason is FinishReason {
  return FINISH_REASONS.some((known) => known === reason);
}

/** What the playground's outcome line shows after "stopped at". */
export function finishInWords(reason: string, where: 'browser' | 'server'): string {
  if (where === 'browser' && isFinishReason(reason)) return IN_THE_BROWSER[reason];
  return ON_THE_SERVER[reason] ?? reason;
}
