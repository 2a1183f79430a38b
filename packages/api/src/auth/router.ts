import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createRouter, publicProcedure, researcherProcedure, type Principal } from '../trpc';
import { endSession, LOCAL_OWNER_ID, logIn } from './sessions';
import {
  AccountRefusal,
  addAccount,
  NewUserInput,
  removeAccount,
  UserExistsError,
  UserName,
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

const LoginInput = z.object({
  name: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
});

export const authRouter = createRouter({
  /** Who the caller is; the web app shows the login page for `anonymous`. */
  whoami: publicProcedure.query(({ ctx }) => ctx.principal),

  login: publicProcedure.input(LoginInput).mutation(async ({ ctx, input }) => {
    if (!ctx.cookies) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: 'log in over HTTP (a cookie is needed)',
      });
    }
    const result = await logIn(ctx.store, input.name, input.password, new Date());
    if (result === null) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong name or password' });
    }
    ctx.cookies.set(result.session.token, result.session.expiresAt);
    return result.principal;
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

  users: createRouter({
    list: researcherProcedure.query(({ ctx }) => ctx.store.listUsers()),
    add: researcherProcedure
      .input(NewUserInput)
      .mutation(({ ctx, input }) =>
        refusing(() => addAccount(ctx.store, input, managerOf(ctx.principal))),
      ),
    remove: researcherProcedure.input(z.object({ name: UserName })).mutation(({ ctx, input }) =>
      refusing(async () => ({
        removed: await removeAccount(ctx.store, input.name, managerOf(ctx.principal)),
      })),
    ),
  }),
});
