import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Every value of cookie `name` in the request, in the order sent. More than one arrives when a
 * page of another port of this host set its own under a narrower Path (browsers send it first).
 */
export function readCookies(request: IncomingMessage, name: string): string[] {
  const header = request.headers.cookie;
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) values.push(part.slice(at + 1).trim());
  }
  return values;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it), Path=/.
 * No `Secure`: the server speaks plain HTTP on loopback; behind TLS the proxy may add it.
 */
export function setCookie(
  response: ServerResponse,
  name: string,
  value: string,
  expiresAt: Date | null,
): void {
  const lifetime =
    expiresAt === null
      ? 'Max-Age=0'
      : `Max-Age=${Math.max(0, Math.ceil((expiresAt.getTime() - Date.now()) / 1000))}`;
  const cookie = `${name}=${value}; ${lifetime}; Path=/; HttpOnly; SameSite=Strict`;
  const previous = response.getHeader('set-cookie');
  const list = Array.isArray(previous) ? previous : typeof previous === 'string' ? [previous] : [];
  response.setHeader('set-cookie', [...list, cookie]);
}
