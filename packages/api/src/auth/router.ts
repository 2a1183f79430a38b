import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import {
  createRouter,
  labelerProcedure,
  publicProcedure,
  researcherProcedure,
  type Principal,
} from '../trpc';
import { loginSource } from './login-limiter';
import { secretHash } from './secret';
import { DOWNLOAD_CODE_PARAMETER, LOCAL_OWNER_ID } from '@terrarium/schema';
import { downloadTarget, takesDownloadLink } from './download-links';
import { endSession, logIn } from './sessions';
import {
  AccountRefusal,
  addAccount,
  changeOwnPassword,
  NewUserInput,
  Password,
  removeAccount,
  setAccountPassword,
  setAccountRole,
  UserExistsError,
  UserName,
  UserRoleSchema,
  type AccountManager,
} from './users';

function managerOf(principal: Principal): AccountManager {
  if (principal.kind !== 'user') return { kind: 'program' };
  return principal.userId === LOCAL_OWNER_ID
    ? { kind: 'local-owner' }
    : { kind: 'account', name: principal.name };
}

/** An account change's refusals as the client's errors (4xx: said, not retried). */
async function refusing<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof UserExistsError)
      throw new TRPCError({ code: 'CONFLICT', message: error.message });
    if (error instanceof AccountRefusal)
      throw new TRPCError({ code: 'BAD_REQUEST', message: error.message });
    throw error;
  }
}

/** A path of this server with its query (`/api/bench/results?run=7`), never another site. */
const DownloadPath = z
  .string()
  .max(2_000)
  .regex(/^\/(?!\/)/, {
    message: 'expected a path of this server, such as /api/bench/results?run=7',
  });

const LoginInput = z.object({
  name: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
});

export const authRouter = createRouter({
  /** Who the caller is; the web app shows the login page for `anonymous`. */
  whoami: publicProcedure.query(({ ctx }) => ctx.principal),

  /**
   * How one gets in: whether any account exists, whether this server takes its owner's link
   * (loopback), and there alone whether a researcher's account exists. The login page tells a
   * fresh install what to do, and a folder whose accounts are all labelers' (nobody can add a
   * researcher on the page) what command to run. `researcher` is null off loopback: there anyone
   * on the network reaches this page, and the roles of the accounts are not theirs to learn. On
   * loopback only users of this machine do, and the one bit said (whether a researcher exists) is
   * what the owner among them needs to get back in.
   */
  entry: publicProcedure.query(async ({ ctx }) => {
    const ownerLink = ctx.ownerLink ?? false;
    const users = await ctx.store.listUsers();
    return {
      accounts: users.length > 0,
      ownerLink,
      researcher: ownerLink ? users.some((user) => user.role === 'researcher') : null,
    };
  }),

  login: publicProcedure.input(LoginInput).mutation(async ({ ctx, input }) => {
    if (!ctx.cookies) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: 'log in over HTTP (a cookie is needed)',
      });
    }
    const admitted = ctx.logins
      ? await ctx.logins.admit(input.name, loginSource(ctx.clientAddress ?? 'unknown'))
      : null;
    if (admitted !== null && !admitted.ok) {
      ctx.setHeader?.('retry-after', String(admitted.retryAfterSeconds));
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: admitted.reason });
    }
    let result: Awaited<ReturnType<typeof logIn>> = null;
    try {
      result = await logIn(ctx.store, input.name, input.password, new Date());
    } finally {
      admitted?.finish(result !== null);
    }
    if (result === null) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong name or password' });
    }
    // The browser's previous session (another account's, or this one's) ends here, not at its
    // expiry: its cookie is replaced, and a copy of it (walk 41) would otherwise still let in.
    const previous = ctx.cookies.current;
    if (previous !== null) await endSession(ctx.store, previous);
    const sessionProof = ctx.cookies.set(result.session.token, result.session.expiresAt);
    // The page keeps the proof and sends it with every request (sessions.ts).
    return { principal: result.principal, sessionProof };
  }),

  logout: publicProcedure.mutation(async ({ ctx }) => {
    // Items being graded go back to the queue now, not when their leases expire (the page's own
    // release comes after the session is gone, and is refused).
    if (ctx.principal.kind === 'user') await ctx.store.releaseLeasesOf(ctx.principal.userId);
    const current = ctx.cookies?.current ?? null;
    if (current !== null) await endSession(ctx.store, current);
    ctx.cookies?.clear();
    return { ok: true };
  }),

  /**
   * A one-time link to `path` for the page to navigate to (a download, a model file in a tab),
   * where the browser sends no headers: the link opens it once, within a minute, as this session
   * (download-links.ts). Programs send their token instead.
   */
  downloadLink: labelerProcedure
    .input(z.object({ path: DownloadPath }))
    .mutation(({ ctx, input }) => {
      const session = ctx.cookies?.current ?? null;
      if (session === null || ctx.downloadLinks === undefined) {
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: 'one-time links are for a logged-in browser; a program sends its token',
        });
      }
      const url = new URL(input.path, 'http://localhost');
      // `/\host/…` parses as another host: only a path of this server is taken.
      if (url.origin !== 'http://localhost' || !takesDownloadLink(url.pathname)) {
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: `${url.pathname} is not opened by a link (downloads and model files are)`,
        });
      }
      const code = ctx.downloadLinks.issue(session, downloadTarget(url));
      url.searchParams.set(DOWNLOAD_CODE_PARAMETER, code);
      return { url: `${url.pathname}${url.search}` };
    }),

  /** One's own password (accounts only: the local owner and programs have none). */
  changePassword: labelerProcedure
    .input(z.object({ current: z.string().min(1).max(1024), password: Password }))
    .mutation(async ({ ctx, input }) => {
      const { principal } = ctx;
      if (principal.kind !== 'user' || principal.userId === LOCAL_OWNER_ID)
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: 'only an account has a password: log in with one to change it',
        });
      const current = ctx.cookies?.current ?? null;
      await refusing(() =>
        changeOwnPassword(
          ctx.store,
          principal.name,
          input,
          current === null ? null : secretHash(current),
        ),
      );
      return { changed: true };
    }),

  users: createRouter({
    list: researcherProcedure.query(({ ctx }) => ctx.store.listUsers()),
    add: researcherProcedure
      .input(NewUserInput)
      .mutation(({ ctx, input }) =>
        refusing(() => addAccount(ctx.store, input, managerOf(ctx.principal))),
      ),
    /** A new password for an account; its sessions end (the caller's own stays, for oneself). */
    setPassword: researcherProcedure
      .input(z.object({ name: UserName, password: Password }))
      .mutation(async ({ ctx, input }) => {
        const { principal } = ctx;
        const current = ctx.cookies?.current ?? null;
        const own = principal.kind === 'user' && principal.name === input.name;
        const changed = await setAccountPassword(
          ctx.store,
          input.name,
          input.password,
          own && current !== null ? secretHash(current) : null,
        );
        if (!changed)
          throw new TRPCError({ code: 'NOT_FOUND', message: `no account named ${input.name}` });
        return { changed };
      }),
    /** Researcher or labeler; it applies at the account's next request, its sessions kept. */
    setRole: researcherProcedure
      .input(z.object({ name: UserName, role: UserRoleSchema }))
      .mutation(({ ctx, input }) =>
        refusing(async () => {
          const changed = await setAccountRole(
            ctx.store,
            input.name,
            input.role,
            managerOf(ctx.principal),
          );
          if (!changed)
            throw new TRPCError({ code: 'NOT_FOUND', message: `no account named ${input.name}` });
          return { changed };
        }),
      ),
    remove: researcherProcedure.input(z.object({ name: UserName })).mutation(({ ctx, input }) =>
      refusing(async () => ({
        removed: await removeAccount(ctx.store, input.name, managerOf(ctx.principal)),
      })),
    ),
  }),
});
