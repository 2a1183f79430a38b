import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createRouter, publicProcedure, researcherProcedure } from '../trpc';
import { endSession, logIn } from './sessions';
import { addUser, NewUserInput, UserExistsError, UserName } from './users';

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
    add: researcherProcedure.input(NewUserInput).mutation(async ({ ctx, input }) => {
      try {
        return await addUser(ctx.store, input);
      } catch (error) {
        if (error instanceof UserExistsError) {
          throw new TRPCError({ code: 'CONFLICT', message: error.message });
        }
        throw error;
      }
    }),
    remove: researcherProcedure
      .input(z.object({ name: UserName }))
      .mutation(async ({ ctx, input }) => ({ removed: await ctx.store.removeUser(input.name) })),
  }),
});
