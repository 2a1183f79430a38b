import type { AppRouter } from '@terrarium/api';
import { closedPort } from '@terrarium/api/testing';
import { createTRPCClient, httpLink } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error';
import { serverFailure } from './server-client';

describe('a failed call to the server, in the user’s words', () => {
  it('says the connection was lost, and what becomes of the work, when nothing answered', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/trpc` })] });
    const error: unknown = await trpc.bench.list.query().catch((caught: unknown) => caught);
    const said = serverFailure(error, url, '; run 5 goes on');
    expect(said).toBeInstanceOf(CliError);
    expect(said instanceof CliError ? said.message : '').toBe(
      `lost the connection to the server at ${url} (fetch failed); run 5 goes on`,
    );
  });

  it('passes anything that is not a tRPC failure through', () => {
    const other = new RangeError('not the server');
    expect(serverFailure(other, 'http://127.0.0.1:1')).toBe(other);
  });
});
