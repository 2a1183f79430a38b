import { z } from 'zod';

/**
 * Text a route takes from its query and stores (a dataset's or a file's name): PostgreSQL's text
 * cannot hold a NUL character, so one is the caller's error, as on every tRPC procedure, not an
 * "internal error" from deep in an insert (walk 44: `/api/import?dataset=%00`).
 */
export function storedQueryText(max: number, { trim }: { trim: boolean }) {
  const string = z.string();
  return (trim ? string.trim() : string)
    .min(1, 'required')
    .max(max)
    .refine((text) => !text.includes('\0'), 'text may not contain a NUL character (\\u0000)');
}
