/**
 * How often a page reads again what may change without it: a run started, retried or resumed
 * from the CLI or another tab. The server pushes nothing for those, and the reads are one row
 * per run, so a look every few seconds costs little and keeps every figure shown current.
 */
export const ELSEWHERE_REFRESH_MS = 5_000;
