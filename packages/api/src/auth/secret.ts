import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh random secret (program token, session cookie value): 256 bits, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a session value: its SHA-256, so a database read hands out nothing. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two secrets of any length (hashing first equalises the lengths). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
