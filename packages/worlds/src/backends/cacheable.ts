import type { Observation } from '@terrarium/schema';

/** Decides whether a real response may be served again for the same call. */
export type CacheRule = (observation: Observation) => boolean;

/**
 * Signs of a transient failure: the call would likely answer differently if made again, so the
 * response says nothing stable about the environment.
 */
export const TRANSIENT_FAILURE_PATTERNS: readonly RegExp[] = [
  /rate[ -]?limit/i,
  /too many requests/i,
  /\b(?:http|status|code|error)\b[^\n]{0,24}\b(?:429|5\d\d)\b/i,
  /\b(?:429|5\d\d)\b[^\n]{0,8}\b(?:too many|internal server|bad gateway|service unavailable|gateway time-?out)/i,
  /internal server error|bad gateway|service unavailable|temporarily unavailable|gateway time-?out/i,
  /\btime[ds]? ?out\b|\btimeout\b|deadline exceeded/i,
  /\bE(?:CONNRESET|CONNREFUSED|TIMEDOUT|AI_AGAIN|PIPE)\b|connection (?:reset|refused|aborted)/i,
  /quota exceeded|overloaded/i,
];

/**
 * The default rule: everything the environment answered is cacheable (a deterministic error such
 * as "order not found" included) except transient failures, which are never cached.
 */
export function isCacheable(observation: Observation): boolean {
  return !TRANSIENT_FAILURE_PATTERNS.some((pattern) => pattern.test(observation.content));
}

/** A rule from a list of patterns; `errors: false` also keeps every `error` observation out. */
export function createCacheRule(options: {
  transientPatterns?: readonly RegExp[];
  errors?: boolean;
}): CacheRule {
  const patterns = options.transientPatterns ?? TRANSIENT_FAILURE_PATTERNS;
  const cacheErrors = options.errors ?? true;
  return (observation) =>
    (cacheErrors || observation.kind !== 'error') &&
    !patterns.some((pattern) => pattern.test(observation.content));
}
