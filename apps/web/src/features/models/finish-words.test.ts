import { describe, expect, it } from 'vitest';
import { finishInWords, serverFinish } from './finish-words';

/** The provenance `/v1/chat/completions` sends in `terrarium.provenance` for a local model. */
const LOCAL_MODEL = { kind: 'model', detail: { finishReason: 'cycle' } };

describe('how a prediction ended, in words', () => {
  it('reads one local model’s decode the same in the browser and on the server', () => {
    // The server says `stop` in OpenAI's words; its provenance keeps the decoder's reason.
    const onServer = serverFinish('onnx:models/terrarium-wm-tiny', LOCAL_MODEL, 'stop');
    expect(finishInWords(onServer)).toBe('repetition');
    expect(finishInWords({ vocabulary: 'decoder', reason: 'cycle' })).toBe('repetition');
    expect(
      finishInWords(serverFinish('onnx:models/tiny', { detail: { finishReason: 'eos' } }, 'stop')),
    ).toBe('end of text');
  });

  it('takes OpenAI’s words from an endpoint, and from a local model that gave no reason', () => {
    const upstream = { kind: 'model', detail: { finishReason: 'length' } };
    expect(serverFinish('openai:http://127.0.0.1:8000/v1#qwen', upstream, 'length')).toEqual({
      vocabulary: 'openai',
      reason: 'length',
    });
    expect(finishInWords(serverFinish('onnx:models/tiny', null, 'stop'))).toBe('end of text');
    expect(finishInWords({ vocabulary: 'openai', reason: 'tool_calls' })).toBe('tool_calls');
  });
});
