import { describe, expect, it } from 'vitest';
import { fakeApiClient } from './trpc.fixture';
import { isRefusal } from './trpc';

describe('isRefusal (what queries do not retry)', () => {
  it('is true for a 4xx answer, false for other failures', async () => {
    const { client } = fakeApiClient(() => {
      throw new Error('this needs the researcher role');
    });
    const refused = await client.datasets.list.query().catch((error: unknown) => error);
    expect(isRefusal(refused)).toBe(true);
    expect(isRefusal(new Error('fetch failed'))).toBe(false);
    expect(isRefusal(null)).toBe(false);
  });
});
