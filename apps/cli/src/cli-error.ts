/** A failure the user can act on: printed as one line, without a stack, and the command exits 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
