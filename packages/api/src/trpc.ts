import { initTRPC, TRPCError } from '@trpc/server';
import type { Store } from '@terrarium/db';
import { ZodError } from 'zod';
import type { BenchRunner } from './bench/bench-service';
import { UnansweredError, type PromptFolder } from '@terrarium/worlds';
import type { CurriculumJobs, ImportJobs } from '@terrarium/jobs';
import { SimulatorError } from './simulate/simulator-error';
import type { LoginLimiter } from './auth/login-limiter';
import type { DownloadLinks } from './auth/download-links';

export type Role = 'researcher' | 'labeler';

/**
 * Who is calling. `user`: a browser session (cookie); `program`: the bearer token of the data
 * folder (CLI, trainers, scripts), trusted like a researcher; `anonymous`: neither.
 */
export type Principal =
  | { kind: 'user'; userId: string; name: string; role: Role }
  | { kind: 'program' }
  | { kind: 'anonymous' };

export const PROGRAM_PRINCIPAL: Principal = { kind: 'program' };
export const ANONYMOUS_PRINCIPAL: Principal = { kind: 'anonymous' };

/**
 * How login/logout reach the HTTP response (the session cookie); absent for in-process callers,
 * where logging in makes no sense.
 */
export interface SessionCookies {
  /**
   * Sets the HttpOnly session cookie for `token`, valid until `expiresAt`, and returns the session
   * proof the page must send beside it (sessions.ts: a cookie alone opens nothing).
   */
  set(token: string, expiresAt: Date): string;
  clear(): void;
  /** The session token the request carried, if any (logout deletes it server-side). */
  readonly current: string | null;
}

/**
 * What services need (no caller identity): the store is the only way to data; there is no global.
 * Services take this, so the CLI and the server call them in-process without a principal.
 */
export interface ServiceContext {
  store: Store;
  /** Takes bench runs to the job queue; absent where no workers run (bench runs are refused). */
  benchRunner?: BenchRunner;
  /** Takes curriculum runs to the job queue; absent where no workers run (runs are refused). */
  curriculumJobs?: CurriculumJobs;
  /** Takes imports to the job queue; absent where no workers run (uploads run in the request). */
  importJobs?: ImportJobs;
  /** `serve --prompts DIR`: `openai:` simulators speak the official AgentWorldBench protocol. */
  prompts?: PromptFolder | null;
}

/** What every procedure can reach: the services' context plus who is calling. */
export interface ApiContext extends ServiceContext {
  /** Established by the HTTP gate (token or session cookie) before any procedure runs. */
  principal: Principal;
  cookies?: SessionCookies;
  /** The server's login limits (absent for in-process callers, which send no passwords). */
  logins?: LoginLimiter;
  /** The server logs its owner in by the link `serve` prints (loopback; see request-gate.ts). */
  ownerLink?: boolean;
  /** The caller's address as this server sees it (a reverse proxy's, behind one). */
  clientAddress?: string;
  /** Sets a header of the HTTP response (`Retry-After` on a refused login). */
  setHeader?: (name: string, value: string) => void;
  /** The server's JSON body limit, named when a body exceeds it (tRPC's own message names none). */
  maxBodyBytes?: number;
  /** One-time links for what a page opens by navigating (absent for in-process callers). */
  downloadLinks?: DownloadLinks;
}

export interface FieldIssue {
  /** Dotted path of the bad input field, e.g. `filter.minSteps`; empty for the input as a whole. */
  field: string;
  message: string;
}

/**
 * A refused body's message: each field with its reason (`items.0.prediction: missing (expected
 * string)`), as `issues` lists them. Many clients show the message alone (the Python example's
 * `HTTP 400: …`), so it must name the field itself; every route that answers `issues` words
 * its message with this.
 */
export function issuesMessage(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.field || 'body'}: ${issue.message}`).join('; ');
}

export function fieldIssues(error: ZodError): FieldIssue[] {
  return withoutLooserBounds(error.issues).flatMap((issue) => {
    const at = issue.path.map(String);
    // A strict object's unknown keys belong to no path of the schema: each is named itself.
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ field: [...at, key].join('.'), message: 'unknown field' }));
    // zod words a field that was not sent "Invalid input: expected string, received undefined".
    if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined'))
      return [{ field: at.join('.'), message: `missing (expected ${issue.expected})` }];
    return [{ field: at.join('.'), message: issue.message }];
  });
}

/**
 * One bound per field: a number above 2^53 breaks both `int()`'s safe-integer bound and the
 * schema's own maximum, and the client needs only the tighter one (`<=4294967295`).
 */
function withoutLooserBounds(issues: readonly ZodError['issues'][number][]) {
  const tightest = new Map<string, number>();
  for (const issue of issues) {
    if (issue.code !== 'too_big' || typeof issue.maximum !== 'number') continue;
    const key = issue.path.map(String).join('.');
    tightest.set(key, Math.min(tightest.get(key) ?? Infinity, issue.maximum));
  }
  return issues.filter(
    (issue) =>
      issue.code !== 'too_big' ||
      typeof issue.maximum !== 'number' ||
      issue.maximum === tightest.get(issue.path.map(String).join('.')),
  );
}

/** What a client sees of an unexpected failure: never a stack, a path or SQL. */
export const INTERNAL_ERROR_MESSAGE = 'internal error';

const t = initTRPC.context<ApiContext>().create({
  // Never put stacks into error bodies, whatever NODE_ENV says.
  isDev: false,
  errorFormatter({ shape, error, ctx }) {
    // Clients show which field was wrong; zod's own message is a JSON dump that no UI should parse.
    const issues = error.cause instanceof ZodError ? fieldIssues(error.cause) : null;
    const message = issues
      ? issues.map((issue) => `${issue.field || 'input'}: ${issue.message}`).join('; ')
      : error.code === 'INTERNAL_SERVER_ERROR'
        ? INTERNAL_ERROR_MESSAGE
        : error.code === 'PAYLOAD_TOO_LARGE' && ctx?.maxBodyBytes !== undefined
          ? `the request body exceeds ${ctx.maxBodyBytes} bytes`
          : shape.message;
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, message, data: { ...data, issues } };
  },
});

export const createRouter = t.router;

/** A SimulatorError (a bad spec, an unknown dataset: the caller's to fix) as its tRPC error. */
export function simulatorTrpcError(error: unknown): unknown {
  // Replay or retrieval with no answer for this input: a 404, as `/v1/chat/completions` says it.
  if (error instanceof UnansweredError)
    return new TRPCError({ code: 'NOT_FOUND', message: error.message, cause: error });
  if (!(error instanceof SimulatorError)) return error;
  const code =
    error.status === 404 ? 'NOT_FOUND' : error.status === 501 ? 'NOT_IMPLEMENTED' : 'BAD_REQUEST';
  return new TRPCError({ code, message: error.message, cause: error });
}

/**
 * The path (`a.b.0`) of the first string in `input`, key or value, holding a NUL character, or
 * null. Iterative: a deeply nested body must not overflow the stack.
 */
export function nulCharacterPath(input: unknown): string | null {
  const pending: [unknown, string][] = [[input, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, at] = next;
    if (typeof value === 'string') {
      if (value.includes('\0')) return at;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) =>
        pending.push([item, at === '' ? `${index}` : `${at}.${index}`]),
      );
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const path = at === '' ? key : `${at}.${key}`;
        if (key.includes('\0')) return path;
        pending.push([item, path]);
      }
    }
  }
  return null;
}

// Every procedure: text with a NUL character is refused as the caller's error (PostgreSQL's text
// and jsonb cannot hold one; it failed as "internal error" deep in a query), and a SimulatorError
// raised anywhere below it (services share the dataset and simulator lookups) reaches the caller
// as its 4xx and its words, never as "internal error".
const procedure = t.procedure.use(async ({ next, getRawInput }) => {
  // A body that does not parse is left to the procedure: one without input never reads it (a
  // logout posts none), and one with input refuses it as it always did.
  const raw = await getRawInput().catch(() => undefined);
  const nulAt = nulCharacterPath(raw);
  if (nulAt !== null) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `${nulAt === '' ? 'input' : nulAt}: text may not contain a NUL character (\\u0000)`,
    });
  }
  const result = await next();
  if (!result.ok && result.error.cause instanceof SimulatorError) {
    throw simulatorTrpcError(result.error.cause);
  }
  return result;
});

/** Anyone, logged in or not. Only login, logout, whoami and health belong here. */
export const publicProcedure = procedure;

/** Any logged-in user (researcher or labeler) or the program token. */
export const labelerProcedure = procedure.use(({ ctx, next }) => {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'log in first' });
  }
  return next({ ctx: { principal } });
});

/** Researchers and the program token: everything that is not labeling. */
export const researcherProcedure = procedure.use(({ ctx, next }) => {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'log in first' });
  }
  if (principal.kind === 'user' && principal.role !== 'researcher') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'this needs the researcher role' });
  }
  return next({ ctx: { principal } });
});

/** True for callers allowed to do researcher-only things (for finer checks inside a procedure). */
export function isResearcher(principal: Principal): boolean {
  return (
    principal.kind === 'program' || (principal.kind === 'user' && principal.role === 'researcher')
  );
}
