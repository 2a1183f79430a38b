/** A bad simulator request: the caller can fix it (HTTP 400 naming the field). */
export class SimulatorError extends Error {
  override name = 'SimulatorError';
  constructor(
    readonly field: string,
    message: string,
    /** 400 for a bad spec or a refused host; 501 for a backend this build cannot run yet. */
    readonly status: 400 | 404 | 501 = 400,
  ) {
    super(`${field}: ${message}`);
  }
}
