import { seededRandom } from '@terrarium/executable-worlds';

/** FNV-1a: turns ids into seeds, so a run is a pure function of its inputs. */
export function hashSeed(...parts: (string | number)[]): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('\u0000')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function randomFor(...parts: (string | number)[]): () => number {
  return seededRandom(hashSeed(...parts));
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}
