import type { IncomingMessage } from 'node:http';

export class BodyError extends Error {
  override name = 'BodyError';
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message);
  }
}

/** Chat histories of long trajectories are large, but not this large. */
export const MAX_JSON_BODY_BYTES = 64 * 1024 * 1024;

/** The request body parsed as JSON; a BodyError (400/413) when it is not JSON or too big. */
export async function readJsonBody(
  request: IncomingMessage,
  maxBytes = MAX_JSON_BODY_BYTES,
): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    if (!Buffer.isBuffer(part)) continue;
    size += part.length;
    if (size > maxBytes) {
      request.resume();
      throw new BodyError(`the request body exceeds ${maxBytes} bytes`, 413);
    }
    parts.push(part);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch (error) {
    throw new BodyError(
      `the request body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      400,
    );
  }
}
