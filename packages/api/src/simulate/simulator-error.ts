/** A bad simulator request: the caller can fix it (HTTP 400 naming the field). */
export class SimulatorError extends Error {
  override name = 'SimulatorError';
  constructor(
    readonly field: string,
    /** The message without the field, for an issue that names the field itself. */
    readonly reason: string,
    /** 400 for a bad spec or a refused host; 501 for a backend this build cannot run yet. */
    readonly status: 400 | 404 | 501 = 400,
  ) {
    super(`${field}: ${reason}`);
  }
}
