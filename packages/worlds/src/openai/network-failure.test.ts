import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { networkFailure } from './network-failure';

describe('networkFailure', () => {
  it('says in plain words that nothing listens where a real request went, without the errno code', async () => {
    // A port that was just listened on and closed: the kernel refuses the connection.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    await new Promise((resolve) => server.close(resolve));
    const error: unknown = await fetch(`http://127.0.0.1:${address.port}/v1/chat/completions`).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(networkFailure(error)).toBe(
      'nothing accepted the connection; is the server running on that port?',
    );
  });

  it('keeps the transport’s own words for a failure it has no plain words for', () => {
    const cause = new Error('other side hung up oddly');
    expect(networkFailure(new Error('fetch failed', { cause }))).toBe(
      'fetch failed: other side hung up oddly',
    );
    expect(networkFailure('a string')).toBe('a string');
  });
});
