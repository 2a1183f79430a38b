import type { AppRouter } from '@terrarium/api';
import { createTRPCClient, httpLink } from '@trpc/client';

export interface ApiCall {
  /** The procedure, e.g. `bench.runs`. */
  path: string;
  input: unknown;
}

/**
 * A tRPC client whose network is `answer`: it gets each call's procedure path and input (as the
 * server would parse them from the URL or body) and returns the data, which tests build with the
 * procedures' own output types; an `answer` that throws is a 400 refusal with its message. The web
 * tests have no server to talk to; every call is kept.
 */
export function fakeApiClient(answer: (call: ApiCall) => unknown) {
  const calls: ApiCall[] = [];
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: 'http://terrarium.test/trpc',
        fetch: async (request, init) => {
          const url = new URL(
            typeof request === 'string' || request instanceof URL ? request : request.url,
          );
          const text = typeof init?.body === 'string' ? init.body : url.searchParams.get('input');
          const call = {
            path: url.pathname.replace(/^\/trpc\//, ''),
            input: text === null ? undefined : JSON.parse(text),
          };
          calls.push(call);
          let data: unknown;
          try {
            data = answer(call);
          } catch (error) {
            // A refusal as the server sends it: the client raises a TRPCClientError with it.
            const message = error instanceof Error ? error.message : String(error);
            return new Response(
              JSON.stringify({
                error: { message, code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 } },
              }),
              { status: 400, headers: { 'content-type': 'application/json' } },
            );
          }
          return new Response(JSON.stringify({ result: { data } }), {
            headers: { 'content-type': 'application/json' },
          });
        },
      }),
    ],
  });
  return { client, calls };
}
