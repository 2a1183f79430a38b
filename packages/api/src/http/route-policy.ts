import { RUN_RESULTS_PATH } from '@terrarium/schema';
import type { Principal } from '../trpc';

/** Who may call an HTTP route: anyone, any logged-in user or program, or researchers/programs. */
export type Access = 'public' | 'labeler' | 'researcher';

export interface RoutePolicy {
  path: string;
  /** The route answers every path under `path` (e.g. `/v1/envs/`). */
  prefix?: boolean;
  access: Access;
}

/**
 * Every HTTP route and who may call it. A route missing here is treated as researcher-only, the
 * strictest level short of none, so a route added without thinking about access is never open;
 * security.test.ts calls every entry with every kind of caller.
 */
export const HTTP_ROUTE_POLICIES: readonly RoutePolicy[] = [
  { path: '/api/health', access: 'public' },
  { path: '/api/datasets', access: 'researcher' },
  { path: '/api/import', access: 'researcher' },
  { path: '/api/bench/import', access: 'researcher' },
  { path: RUN_RESULTS_PATH, access: 'researcher' },
  { path: '/api/simulate', access: 'researcher' },
  { path: '/v1/models', access: 'researcher' },
  { path: '/v1/chat/completions', access: 'researcher' },
  // Environment server (env-routes.ts) and reward service (reward-routes.ts): programs' routes.
  { path: '/v1/envs', access: 'researcher' },
  { path: '/v1/envs/', prefix: true, access: 'researcher' },
  { path: '/v1/tasks', access: 'researcher' },
  { path: '/v1/tasks/', prefix: true, access: 'researcher' },
  { path: '/v1/worlds', access: 'researcher' },
  { path: '/v1/openapi.json', access: 'researcher' },
  { path: '/v1/reward', access: 'researcher' },
  { path: '/v1/reward/openrlhf', access: 'researcher' },
];

/**
 * Routes whose official clients cannot send a header: OpenRLHF's `--reward.remote_url` posts JSON
 * with no Authorization, so the token rides in the URL the user configures (`…?token=…`). Only
 * these routes read it; everywhere else a token belongs in the header, out of logs and history.
 */
export const QUERY_TOKEN_ROUTES: ReadonlySet<string> = new Set(['/v1/reward/openrlhf']);

export function routeAccess(pathname: string): Access {
  const policy = HTTP_ROUTE_POLICIES.find((entry) =>
    entry.prefix ? pathname.startsWith(entry.path) : pathname === entry.path,
  );
  return policy?.access ?? 'researcher';
}

/** null when allowed; otherwise the HTTP status and message of the refusal. */
export function refusal(
  access: Access,
  principal: Principal,
  pathname = '',
): { status: 401 | 403; message: string } | null {
  if (access === 'public') return null;
  if (principal.kind === 'anonymous') {
    return {
      status: 401,
      message: QUERY_TOKEN_ROUTES.has(pathname)
        ? 'add ?token=<token> (printed by terrarium serve) to the URL, or send Authorization: Bearer <token>'
        : 'send Authorization: Bearer <token> (printed by terrarium serve) or log in',
    };
  }
  if (access === 'researcher' && principal.kind === 'user' && principal.role !== 'researcher') {
    return { status: 403, message: 'this needs the researcher role' };
  }
  return null;
}
