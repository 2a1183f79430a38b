import type { BenchItem } from '@terrarium/schema';
import { actionText } from '@terrarium/worlds';
import type { ChatMessage } from '@terrarium/worlds';
import type { SftRecord } from './sft-records';

/** Default n-gram length of the overlap check (13-grams, as in GPT-3's contamination study). */
export const LEAK_NGRAM = 13;

export interface Leak {
  itemId: string;
  /** What was found in the training data: the real observation alone, or the action with it. */
  via: 'observation' | 'action+observation';
  /** The first shared n-gram, as words. */
  ngram: string;
}

const WORD = /[\p{L}\p{N}_]+/gu;

function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** 32-bit string hash (FNV-1a over UTF-16 code units), cached per distinct word. */
function wordHash(word: string, cache: Map<string, number>): number {
  const cached = cache.get(word);
  if (cached !== undefined) return cached;
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  cache.set(word, hash >>> 0);
  return hash >>> 0;
}

/**
 * Hashes of every n-gram of a word sequence, 53 bits each (two 32-bit lanes), so millions of
 * training n-grams fit in a Set of numbers and a false match stays around 1e-9 per lookup.
 */
function ngramHashes(tokens: readonly string[], n: number, cache: Map<string, number>): number[] {
  const hashes = tokens.map((token) => wordHash(token, cache));
  const out: number[] = [];
  for (let start = 0; start + n <= hashes.length; start++) {
    let a = 0x9e3779b9;
    let b = 0x85ebca6b;
    for (let k = start; k < start + n; k++) {
      const h = hashes[k] ?? 0;
      a = Math.imul(a ^ h, 0x5bd1e995);
      a ^= a >>> 15;
      b = Math.imul(b + h, 0x27d4eb2f);
      b ^= b >>> 13;
    }
    out.push((a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff));
  }
  return out;
}

/**
 * Bench items whose real observation, or whose action followed by its real observation, shares an
 * n-gram of words (lower-cased letters, digits, underscores) with the training data. The training
 * side is every consecutive user → assistant pair of every record (each pair of message objects indexed once),
 * so an observation seen anywhere in a training conversation is found. Observations shorter than n
 * words are checked together with their action, by the n-grams that reach into the observation.
 */
export function findLeaks(
  trainRecords: Iterable<SftRecord>,
  benchItems: readonly BenchItem[],
  n = LEAK_NGRAM,
): Leak[] {
  const cache = new Map<string, number>();
  const seen = new Set<number>();
  // Records of one trajectory share their history's message objects (sftRecords), so a pair is
  // indexed once; records built elsewhere are only indexed again (same hashes), never missed.
  const indexedObjects = new Map<ChatMessage, Set<ChatMessage | undefined>>();
  for (const record of trainRecords) {
    const turns = record.messages.filter((message) => message.role !== 'system');
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i];
      if (turn === undefined) continue;
      const next = turns[i + 1];
      const paired = turn.role === 'user' && next?.role === 'assistant' ? next : undefined;
      const seenWith = indexedObjects.get(turn);
      if (seenWith?.has(paired) === true) continue;
      if (seenWith === undefined) indexedObjects.set(turn, new Set([paired]));
      else seenWith.add(paired);
      const pair = paired === undefined ? turn.content : `${turn.content}\n${paired.content}`;
      for (const hash of ngramHashes(words(pair), n, cache)) seen.add(hash);
    }
  }
  const leaks: Leak[] = [];
  for (const item of benchItems) {
    const observation = words(item.real.content);
    const found = firstShared(observation, n, seen, cache);
    if (found !== null) {
      leaks.push({ itemId: item.id, via: 'observation', ngram: found });
      continue;
    }
    const action = words(actionText(item.action));
    // Only n-grams that reach into the observation: a shared action alone reveals no answer.
    const foundWithAction = firstShared([...action, ...observation], n, seen, cache, action.length);
    if (foundWithAction !== null) {
      leaks.push({ itemId: item.id, via: 'action+observation', ngram: foundWithAction });
    }
  }
  return leaks;
}

function firstShared(
  tokens: readonly string[],
  n: number,
  seen: ReadonlySet<number>,
  cache: Map<string, number>,
  mustReach = 0,
): string | null {
  const hashes = ngramHashes(tokens, n, cache);
  const at = hashes.findIndex((hash, start) => start + n > mustReach && seen.has(hash));
  return at < 0 ? null : tokens.slice(at, at + n).join(' ');
}

/** Every n-gram a bench item could leak through: those of its observation and those reaching into it. */
function benchNgrams(
  items: readonly BenchItem[],
  n: number,
  cache: Map<string, number>,
): Set<number> {
  const hashes = new Set<number>();
  for (const item of items) {
    const action = words(actionText(item.action));
    const tokens = [...action, ...words(item.real.content)];
    ngramHashes(tokens, n, cache).forEach((hash, start) => {
      if (start + n > action.length) hashes.add(hash);
    });
  }
  return hashes;
}

function keyOf(record: SftRecord): string {
  return `${record.meta.dataset}\u0000${record.meta.trajectory}`;
}

export interface LeakFreeSft {
  records: SftRecord[];
  /** Records dropped because they held, or came after, a transition sharing an n-gram with the bench. */
  dropped: number;
  /** Trajectories cut short that way. */
  truncatedTrajectories: number;
}

/**
 * Cuts every training trajectory before its first transition whose action and observation share an
 * n-gram with a bench item's observation (later records would carry it in their history), so that
 * `findLeaks` finds nothing. Shared environment state (the same product catalog, a boilerplate
 * error) is what remains after excluding the bench's own trajectories; this removes it.
 */
export function dropLeakingRecords(
  records: readonly SftRecord[],
  benchItems: readonly BenchItem[],
  n = LEAK_NGRAM,
): LeakFreeSft {
  const cache = new Map<string, number>();
  const bench = benchNgrams(benchItems, n, cache);
  const cutAt = new Map<string, number>();
  for (const record of records) {
    const action = record.messages.at(-2);
    const observation = record.messages.at(-1);
    if (action === undefined || observation === undefined) continue;
    const tokens = words(`${action.content}\n${observation.content}`);
    if (!ngramHashes(tokens, n, cache).some((hash) => bench.has(hash))) continue;
    const key = keyOf(record);
    cutAt.set(key, Math.min(cutAt.get(key) ?? Infinity, record.meta.turnIndex));
  }
  const kept = records.filter(
    (record) => record.meta.turnIndex < (cutAt.get(keyOf(record)) ?? Infinity),
  );
  return {
    records: kept,
    dropped: records.length - kept.length,
    truncatedTrajectories: cutAt.size,
  };
}
