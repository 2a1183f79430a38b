import { initTRPC } from '@trpc/server';
import type { Store } from '@terrarium/db';
import { ZodError } from 'zod';
import type { BenchRunner } from './bench/bench-service';

/** What every procedure can reach. The store is the only way to data; there is no global. */
export interface ApiContext {
  store: Store;
  /** Takes bench runs to the job queue; absent where no workers run (bench runs are refused). */
  benchRunner?: BenchRunner;
}

export interface FieldIssue {
  /** Dotted path of the bad input field, e.g. `filter.minSteps`; empty for the input as a whole. */
  field: string;
  message: string;
}

export function fieldIssues(error: ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

const t = initTRPC.context<ApiContext>().create({
  errorFormatter({ shape, error }) {
    // Clients show which field was wrong; zod's own message is a JSON dump that no UI should parse.
    const issues = error.cause instanceof ZodError ? fieldIssues(error.cause) : null;
    const message = issues
      ? issues.map((issue) => `${issue.field || 'input'}: ${issue.message}`).join('; ')
      : shape.message;
    return { ...shape, message, data: { ...shape.data, issues } };
  },
});

export const createRouter = t.router;
export const publicProcedure = t.procedure;
