import { TRPCError } from '@trpc/server';
import type { LabelActor } from '@terrarium/db';
import type { Principal } from '../trpc';

/**
 * Who a label belongs to. The program token labels as `program` (scripts, imports); people label
 * as their account, so two browser sessions of one account are one labeler.
 */
export function labelActor(principal: Principal): LabelActor {
  switch (principal.kind) {
    case 'user':
      return { id: principal.userId, name: principal.name };
    case 'program':
      return { id: 'program', name: 'program' };
    case 'anonymous':
      throw new TRPCError({ code: 'UNAUTHORIZED', message: 'log in first' });
  }
}
