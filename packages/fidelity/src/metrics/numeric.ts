/** Relative error at or under which two numbers count as the same (live data drifts ±10%). */
export const FULL_CREDIT_ERROR = 0.1;
/** Relative error at which credit reaches 0. */
export const NO_CREDIT_ERROR = 1;

/** 1 within 10% relative error, falling linearly to 0 at 100%. */
export function numericCloseness(predicted: number, real: number): number {
  if (predicted === real) return 1;
  // Overflowed literals (1e999) or NaN: only an identical value counts.
  if (!Number.isFinite(predicted) || !Number.isFinite(real)) return 0;
  const scale = Math.max(Math.abs(predicted), Math.abs(real));
  const error = Math.abs(predicted - real) / scale;
  if (error <= FULL_CREDIT_ERROR) return 1;
  if (error >= NO_CREDIT_ERROR) return 0;
  return (NO_CREDIT_ERROR - error) / (NO_CREDIT_ERROR - FULL_CREDIT_ERROR);
}
