import { describe, expect, it } from 'vitest';
import { pricingFromEnv } from './pricing';

describe('pricing', () => {
  it('reads prices per simulator spec', () => {
    const prices = pricingFromEnv({
      TERRARIUM_PRICING:
        '{"openai:http://127.0.0.1:8000/v1#qwen": {"inputPerMillion": 0.5, "outputPerMillion": 1.5}}',
    });
    expect(prices.get('openai:http://127.0.0.1:8000/v1#qwen')).toEqual({
      inputPerMillion: 0.5,
      outputPerMillion: 1.5,
    });
    expect(pricingFromEnv({}).size).toBe(0);
  });

  it('names what is wrong', () => {
    expect(() => pricingFromEnv({ TERRARIUM_PRICING: '{oops' })).toThrow(
      /TERRARIUM_PRICING: not JSON/,
    );
    expect(() =>
      pricingFromEnv({
        TERRARIUM_PRICING: '{"openai:x#m": {"inputPerMillion": -1, "outputPerMillion": 1}}',
      }),
    ).toThrow(/TERRARIUM_PRICING: openai:x#m\.inputPerMillion/);
  });
});
