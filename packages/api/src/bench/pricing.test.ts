import { describe, expect, it } from 'vitest';
import { priceOf, pricingFromEnv } from './pricing';

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

  it('finds the price of an endpoint however its URL is spelled, and of that model only', () => {
    const prices = pricingFromEnv({
      TERRARIUM_PRICING:
        '{"openai:http://127.0.0.1:4875/v1#judge-1": {"inputPerMillion": 2.5, "outputPerMillion": 10}}',
    });
    const price = { inputPerMillion: 2.5, outputPerMillion: 10 };
    // Walk 37: a trailing slash left a judged run unpriced, with no word about it.
    expect(priceOf(prices, 'openai:http://127.0.0.1:4875/v1/#judge-1')).toEqual(price);
    expect(priceOf(prices, 'openai:http://127.0.0.1:4875/v1#judge-2')).toBeUndefined();
    expect(priceOf(prices, 'openai:http://127.0.0.1:4876/v1#judge-1')).toBeUndefined();
    expect(priceOf(prices, 'openai:http://127.0.0.1:4875/v2#judge-1')).toBeUndefined();
    expect(priceOf(prices, 'retrieval')).toBeUndefined();
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
