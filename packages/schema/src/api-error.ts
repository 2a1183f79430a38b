import { z } from 'zod';

/** The body of every refusal the plain HTTP routes (`/api`, `/v1`) answer with. */
export const ApiErrorBody = z.object({
  error: z.object({
    message: z.string(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** The message of a refusal's body, or null when the body is not one (a proxy's page, say). */
export function apiErrorMessage(body: unknown): string | null {
  const parsed = ApiErrorBody.safeParse(body);
  return parsed.success ? parsed.data.error.message : null;
}
